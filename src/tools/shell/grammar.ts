/**
 * Loads tree-sitter's bash grammar for parse.ts, one of two ways behind one interface:
 * - native: the `tree-sitter` binding and tree-sitter-bash's own add-on, both N-API prebuilds shipped in their npm
 *   packages (no compiler at install). About 4 ms of CPU to load, and its first parse costs what the others do.
 * - wasm: web-tree-sitter with the same grammar compiled to WebAssembly (tree-sitter-bash.wasm, from the same
 *   package and version): ~24 ms of CPU before its first parse, nearly all of it V8 compiling the grammar's lexer
 *   (docs/performance.md). It is what the single executable uses (a SEA's `require` reaches no add-on), and what a
 *   run falls back to when the add-on cannot load (no prebuild for the platform, `node --no-addons`, a permission
 *   model without `--allow-addon`).
 * Both read the same grammar (tree-sitter-bash 0.25.1): test/permissions/grammar-parity.test.ts compares their
 * trees on every command line of the permission tests.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type NativeParser from 'tree-sitter';
import { beforeWasmCompile } from '../../process/wasm-tier-up.ts';

/** A node of either parser's tree: the part of their (structurally equal) node APIs parse.ts uses. */
export interface ShellNode {
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly hasError: boolean;
  readonly children: ReadonlyArray<ShellNode | null>;
  readonly namedChildren: ReadonlyArray<ShellNode | null>;
}

/** A parsed line; `delete` frees a WebAssembly tree's memory (a native tree is freed by the garbage collector). */
export interface ShellTree {
  readonly rootNode: ShellNode;
  delete?(): void;
}

/** Which parser reads the lines. */
export type GrammarKind = 'native' | 'wasm';

/** A loaded grammar. */
export interface ShellGrammar {
  readonly kind: GrammarKind;
  /** The tree of `line`, or undefined when the parser gave none. */
  parse(line: string): ShellTree | undefined;
}

const requireHere = createRequire(import.meta.url);

/** The native binding with tree-sitter-bash's add-on; throws when either cannot load. */
export function loadNativeGrammar(): ShellGrammar {
  const Parser = requireHere('tree-sitter') as typeof NativeParser;
  // The add-on itself, through the loader tree-sitter-bash's own index uses, without that index's node-types.json:
  // given it, the binding builds a class per node type (parse.ts reads only `type`).
  const root = path.dirname(requireHere.resolve('tree-sitter-bash/package.json'));
  const load = createRequire(path.join(root, 'package.json'))('node-gyp-build') as (dir: string) => unknown;
  const language = load(root) as NativeParser.Language;
  const parser = new Parser();
  parser.setLanguage(language);
  return { kind: 'native', parse: (line) => parser.parse(line) };
}

/** web-tree-sitter with the grammar's WebAssembly build. */
export async function loadWasmGrammar(): Promise<ShellGrammar> {
  beforeWasmCompile();
  const { Parser, Language } = await import('web-tree-sitter');
  // In the single executable (scripts/sea.ts) both grammars are assets of the executable, not files beside it.
  const sea = process.getBuiltinModule('node:sea');
  const asset = (name: string) => new Uint8Array(sea.getRawAsset(name));
  await Parser.init(sea.isSea() ? { wasmBinary: asset('web-tree-sitter.wasm') } : undefined);
  // Bytes, not a path: given a path, Language.load reads it through `import('fs/promises')`, and that first dynamic
  // import starts Node's ES module loader in the CommonJS bundle (~4 ms and ~1.3 MB of the run that parses).
  const language = await Language.load(
    sea.isSea()
      ? asset('tree-sitter-bash.wasm')
      : readFileSync(requireHere.resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
  );
  const parser = new Parser();
  parser.setLanguage(language);
  return { kind: 'wasm', parse: (line) => parser.parse(line) ?? undefined };
}

/**
 * The native grammar, or the WebAssembly one when the add-on cannot load or the process is the single executable.
 * `native` is the native loader (a test passes one that fails).
 */
export async function loadGrammar(native: () => ShellGrammar = loadNativeGrammar): Promise<ShellGrammar> {
  if (process.getBuiltinModule('node:sea').isSea()) return loadWasmGrammar();
  try {
    return native();
  } catch {
    return loadWasmGrammar();
  }
}
