/**
 * The grammar's two parsers (src/tools/shell/grammar.ts) read every line alike: the native binding, which a run
 * uses, and the WebAssembly build, which the single executable and a run without add-ons use. On every command of
 * the permission table, every character line of characters.test.ts and the 5,000 seeded lines of
 * fast-parse.test.ts, the two trees must be the same node for node (type, named or not, text, error flag), so every
 * permission decision is the same on either, with two known exceptions, neither of which lets a line run unasked.
 * A line with a syntax error is an error to both (the check asks), but the two runtimes (tree-sitter 0.25.1 native,
 * web-tree-sitter 0.27.1) recover from it differently, so the nodes around the error may differ. And the grammar's
 * external scanner asks the C
 * library whether a character is a letter (`iswalpha`) where a command may start with an assignment: the WebAssembly
 * build's libc says yes for non-ASCII letters (`ª`, `é`), glibc in a Node process (C locale) says no. So `p ;é# x`
 * is an error to the WebAssembly parser (the check asks) and the commands `p` and `é# x` to the native one, which is
 * what bash runs (characters.test.ts holds every plain reading to bash's). And a run whose add-on cannot load reads
 * lines with the WebAssembly one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  loadGrammar,
  loadNativeGrammar,
  loadWasmGrammar,
  type ShellGrammar,
  type ShellNode,
} from '../../src/tools/shell/grammar.ts';
import { grammarAnalysis } from '../../src/tools/shell/parse.ts';
import { random } from '../faults/engine.ts';
import { characterLines, seededLine, tableCommands } from './shell-lines.ts';

/** The tree as nested arrays: [type, named, error, text, ...children]. */
function shape(node: ShellNode | null): unknown {
  if (!node) return null;
  return [node.type, node.isNamed, node.hasError, node.text, ...node.children.map(shape)];
}

/** `line`'s tree as `grammar` reads it, as JSON. */
function treeOf(grammar: ShellGrammar, line: string): string {
  const tree = grammar.parse(line);
  if (!tree) return 'no tree';
  try {
    return JSON.stringify(shape(tree.rootNode));
  } finally {
    tree.delete?.();
  }
}

test('the native and the WebAssembly grammars build the same tree for every line the permission tests read', async () => {
  const native = loadNativeGrammar();
  const wasm = await loadWasmGrammar();
  assert.deepEqual([native.kind, wasm.kind], ['native', 'wasm']);
  const next = random(27);
  const seeded = Array.from({ length: 5000 }, () => seededLine(next));
  const table = tableCommands();
  const lines = [...table, ...characterLines(), ...seeded];
  const differ = lines.filter((line) => treeOf(native, line) !== treeOf(wasm, line));
  const hasError = (grammar: ShellGrammar, line: string) => grammar.parse(line)!.rootNode.hasError;
  // The exceptions: an error to both, recovered from differently; a non-ASCII letter that starts a command, an
  // error to the WebAssembly parser (it asks) and a word to the native one, as to bash.
  const letterFirst = /(^|[;&|]\s*)[^\x00-\x7f]/u;
  const recovered = differ.filter((line) => hasError(native, line) && hasError(wasm, line));
  const letters = differ.filter((line) => letterFirst.test(line) && hasError(wasm, line) && !hasError(native, line));
  assert.deepEqual(
    differ.filter((line) => !recovered.includes(line) && !letters.includes(line)),
    [],
  );
  assert.ok(recovered.length < 50 && letters.length < 500, `${recovered.length} and ${letters.length} lines differ`);
  assert.ok(table.length > 200, `${table.length} table rows`);
  // Not empty trees: the table's lines hold the constructs the check cares about.
  const types = new Set(table.flatMap((line) => JSON.stringify(shape(native.parse(line)!.rootNode)).match(/"\w+"/g)));
  for (const type of ['"command_substitution"', '"heredoc_redirect"', '"file_redirect"', '"variable_assignment"'])
    assert.ok(types.has(type), `no ${type} in the table's trees`);
});

test('a run whose add-on cannot load reads lines with the WebAssembly grammar, with the same analysis', async () => {
  const failing = (): ShellGrammar => {
    throw new Error('ERR_DLOPEN_DISABLED');
  };
  const fallback = await loadGrammar(failing);
  assert.equal(fallback.kind, 'wasm');
  assert.equal((await loadGrammar()).kind, 'native');
  const line = 'grep -c "turns" *.json | sort -r > out.txt && echo $(rm -rf /) <<EOF\nx\nEOF';
  assert.equal(treeOf(fallback, line), treeOf(loadNativeGrammar(), line));
  const analysis = await grammarAnalysis(line);
  assert.deepEqual(analysis.writes, ['out.txt']);
  assert.ok(analysis.commands.some((c) => c.argv.join(' ') === 'rm -rf /'));
});
