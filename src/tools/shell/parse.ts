/**
 * Parses a Bash command line with tree-sitter's bash grammar into what permission checks need:
 * the simple commands with their literal argv, the files redirected to or from, and every
 * construct that makes the line more than a list of literal simple commands (background `&`,
 * substitutions, expansions, here-documents, subshells, functions, assignments ...).
 * Characters that bash and the grammar may read differently (control characters, a backslash
 * before a newline, Unicode spaces) make the line unknown whatever the parse says (bytes.ts).
 * A line of plain words and `;`, `&&`, `||`, `|` is read without the grammar (fast-parse.ts);
 * the grammar loads on first use (grammar.ts: a native add-on, or its WebAssembly build), then parsing is cheap.
 */
import { loadGrammar, type ShellGrammar, type ShellNode as Node } from './grammar.ts';
import { ambiguousCharacter } from './bytes.ts';
import { fastAnalysis } from './fast-parse.ts';
import { literalOf } from './words.ts';

/** One simple command whose words are all literal after quote removal. */
export interface SimpleCommand {
  /** The words, quotes removed, backslash escapes applied: `'-de""lete'` is `-delete`. */
  argv: string[];
  /**
   * For each word of argv, its glob pattern when it has unquoted glob or brace characters (the
   * quoted characters escaped with a backslash: `'a b'*` is `\a\ \b*`); undefined for a plain word.
   */
  patterns: Array<string | undefined>;
  /** An unquoted word may expand to other words (glob or brace characters). */
  globbed: boolean;
  /** `NAME=value cmd`: the command runs with a changed environment. */
  assignments: boolean;
}

/** What a command line does, as far as a parser can tell without running it. */
export interface ShellAnalysis {
  /** Every simple command found, nested ones (in substitutions, subshells, `if` ...) included. */
  commands: SimpleCommand[];
  /** Why the line is not a plain list of literal simple commands; empty when it is one. */
  complex: string[];
  /** A command's name is not a literal (`$CMD x`, `"$(...)" x`): what it runs is unknown. */
  opaqueName: boolean;
  /** Files written by output redirections (`> f`, `>> f`, `&> f`), `/dev/null` excluded. */
  writes: string[];
  /** Files read by input redirections (`< f`). */
  reads: string[];
}

let grammarPromise: Promise<ShellGrammar> | undefined;

/** Parses one command line. */
export async function analyzeShell(line: string): Promise<ShellAnalysis> {
  const fast = fastAnalysis(line);
  if (fast) return fast;
  const analysis = await grammarAnalysis(line);
  // What the grammar saw is still judged (a deny rule may match it), but what bash runs may differ.
  const odd = ambiguousCharacter(line);
  if (odd) {
    analysis.complex.push(odd);
    analysis.opaqueName = true;
  }
  return analysis;
}

/** The grammar's reading of `line` alone (no fast path, no character check): the reference tests compare with. */
export async function grammarAnalysis(line: string): Promise<ShellAnalysis> {
  grammarPromise ??= loadGrammar();
  const tree = (await grammarPromise).parse(line);
  if (!tree) return { commands: [], complex: ['unparsable'], opaqueName: true, writes: [], reads: [] };
  try {
    const analysis: ShellAnalysis = { commands: [], complex: [], opaqueName: false, writes: [], reads: [] };
    if (tree.rootNode.hasError) analysis.complex.push('syntax the parser does not understand');
    walk(tree.rootNode, analysis);
    return analysis;
  } finally {
    tree.delete?.();
  }
}

/** Node types that only sequence commands: `;`, newlines, `&&`, `||`, pipes, `!`. */
const SEQUENCES = new Set(['program', 'list', 'pipeline', 'negated_command']);
const SEPARATORS = new Set([';', ';;', '&&', '||', '|', '|&', '!', '\n']);

function walk(node: Node, out: ShellAnalysis): void {
  if (node.type === 'comment') return;
  if (SEQUENCES.has(node.type)) {
    for (const child of node.children) {
      if (!child) continue;
      if (child.type === '&') out.complex.push('a background job (&)');
      else if (child.isNamed) walk(child, out);
      else if (!SEPARATORS.has(child.type)) out.complex.push(`the operator ${child.type}`);
    }
    return;
  }
  if (node.type === 'command') return command(node, out);
  if (node.type === 'redirected_statement') {
    // Words after a redirection's file (`cat <f a.txt`) are the command's arguments to bash; the
    // grammar hangs them under the redirection.
    const extras = node.namedChildren.flatMap((c) => (c && c.type.endsWith('redirect') ? redirect(c, out) : []));
    const body = node.namedChildren.find((c) => c && !c.type.endsWith('redirect'));
    if (body?.type === 'command') return command(body, out, extras);
    if (body) walk(body, out);
    if (extras.length) out.complex.push('words after a redirection');
    for (const extra of extras) nested(extra, out);
    return;
  }
  // Everything else (subshells, groups, functions, loops, tests, declarations, substitutions,
  // errors) is more than a simple command: note it, and still collect the commands inside.
  out.complex.push(describe(node.type));
  for (const child of node.namedChildren) if (child) walk(child, out);
}

function describe(type: string): string {
  return type === 'ERROR' ? 'syntax the parser does not understand' : type.replace(/_/g, ' ');
}

function command(node: Node, out: ShellAnalysis, trailing: Node[] = []): void {
  const argv: string[] = [];
  const patterns: Array<string | undefined> = [];
  let assignments = false;
  let opaque = false;
  // `$"…"`: bash translates the string through the locale's message catalog.
  if (node.children.some((child) => child?.type === '$')) out.complex.push('a translated string');
  const words = node.namedChildren.flatMap((child) =>
    !child ? [] : child.type.endsWith('redirect') ? redirect(child, out) : [child],
  );
  for (const child of [...words, ...trailing]) {
    if (child.type === 'variable_assignment') {
      assignments = true;
      out.complex.push('a variable assignment');
      for (const inner of child.namedChildren) if (inner) nested(inner, out);
      continue;
    }
    const word = child.type === 'command_name' ? child.namedChildren[0] : child;
    const literal = word ? literalOf(word) : undefined;
    if (literal === undefined) {
      if (child.type === 'command_name') opaque = true;
      out.complex.push(
        word?.type === 'string' ? 'an expansion inside a string' : `a ${describe(word?.type ?? child.type)}`,
      );
      if (word) nested(word, out);
      continue;
    }
    argv.push(literal.value);
    patterns.push(literal.pattern);
  }
  // A command whose name is computed runs something unknown; its other words say nothing.
  if (opaque) out.opaqueName = true;
  else if (argv.length > 0) out.commands.push({ argv, patterns, globbed: patterns.some(Boolean), assignments });
}

/** Collects the commands inside a word that is not literal (`$(rm x)`, `<(cat y)`). */
function nested(node: Node, out: ShellAnalysis): void {
  if (node.type === 'command_substitution' || node.type === 'process_substitution') {
    for (const child of node.namedChildren) if (child) walk(child, out);
    return;
  }
  for (const child of node.namedChildren) if (child) nested(child, out);
}

/**
 * Notes what a redirection reads or writes; returns the words the grammar hung under it after its
 * file (`<f a b`: a and b), which are the command's arguments to bash.
 */
function redirect(node: Node, out: ShellAnalysis): Node[] {
  if (node.type !== 'file_redirect') {
    out.complex.push(
      node.type === 'heredoc_redirect'
        ? 'a here-document'
        : node.type === 'herestring_redirect'
          ? 'a here-string'
          : describe(node.type),
    );
    for (const child of node.namedChildren) if (child) nested(child, out);
    return [];
  }
  const operator = node.children.find((c) => c && !c.isNamed)?.type ?? '';
  const [target, ...extras] = node.namedChildren.filter((c): c is Node => !!c && c.type !== 'file_descriptor');
  const literal = target ? literalOf(target) : undefined;
  if (!target || literal === undefined || literal.pattern !== undefined) {
    out.complex.push('a redirection to a computed file name');
    if (target) nested(target, out);
    return extras;
  }
  // `2>&1`, `>&2`, `<&0`, `>&-`: duplicating or closing descriptors touches no file.
  if ((operator === '>&' || operator === '<&') && /^(\d+|-)$/.test(literal.value)) return extras;
  if (operator === '<') out.reads.push(literal.value);
  else if (literal.value !== '/dev/null') out.writes.push(literal.value);
  return extras;
}
