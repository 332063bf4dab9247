/**
 * Reads the plainest command lines without tree-sitter: words of letters, digits and `_ . / : @ %
 * + , = -`, single-quoted text, double-quoted text without `$`, `` ` ``, `\`, `!`, joined by
 * spaces and the operators `;`, `&&`, `||`, `|`, with redirections that touch no file (`2>&1`,
 * `>/dev/null`, `2>/dev/null`, `&>/dev/null`, `>&2`). For such a line bash does nothing but split
 * it into words and commands: no expansion, no globbing, no file redirection, no reserved word, no
 * assignment. Most commands a model runs (`git status`, `ls -la src`, `grep -rn "foo" src 2>&1 |
 * head`) are such lines, and skip loading the grammar (grammar.ts: ~7 ms of CPU and ~2 MB native,
 * ~35 ms and ~10 MB as WebAssembly). Anything else, or any doubt, returns undefined and the grammar
 * reads the line; test/permissions/fast-parse.test.ts checks that both readings agree on every
 * line this one accepts.
 */
import type { ShellAnalysis, SimpleCommand } from './parse.ts';

const PLAIN = /[A-Za-z0-9_./:@%+,=-]/;
/** Printable ASCII but `'` (single quotes hold anything else literally). */
const SINGLE_QUOTED = /^[\x20-\x26\x28-\x7e]*$/;
/** Printable ASCII but the characters double quotes leave special: `$`, `` ` ``, `\`, `"`, `!`. */
const DOUBLE_QUOTED = /^[\x20\x23\x25-\x5b\x5d-\x5f\x61-\x7e]*$/;
const OPERATORS = ['&&', '||', ';', '|'];
/** Redirections that touch no file: to /dev/null, or duplicating (`>&1`) or closing (`>&-`) a descriptor. */
const REDIRECTION = /^(?:&>>?|>>?)\/dev\/null(?=[ ;|&]|$)|^>&(?:\d+|-)(?=[ ;|&]|$)/;
const RESERVED = new Set(
  'if then else elif fi case esac for select while until do done in function time coproc { } ! [[ ]]'.split(' '),
);

/** The analysis of a plain line, or undefined when the line needs the grammar. */
export function fastAnalysis(line: string): ShellAnalysis | undefined {
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let raw: string[] = [];
  let word: string | undefined;
  let rawWord = '';
  /** The last operator, while no word has followed it. */
  let last: string | undefined;
  const endWord = () => {
    if (word !== undefined) {
      words.push(word);
      raw.push(rawWord);
    }
    word = undefined;
    rawWord = '';
  };
  /** Ends a command at an operator; false when there is no command before it. */
  const endCommand = (): boolean => {
    endWord();
    // A reserved word, an assignment or a job (`%1` is `fg %1`) in the command's place: the grammar reads it.
    if (!words.length || RESERVED.has(raw[0]!) || /^[A-Za-z_]\w*\+?=|^%/.test(raw[0]!)) return false;
    commands.push({ argv: words, patterns: words.map(() => undefined), globbed: false, assignments: false });
    words = [];
    raw = [];
    return true;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === ' ') endWord();
    else if (ch === "'" || ch === '"') {
      const close = line.indexOf(ch, i + 1);
      const text = close === -1 ? '' : line.slice(i + 1, close);
      if (close === -1 || !(ch === "'" ? SINGLE_QUOTED : DOUBLE_QUOTED).test(text)) return undefined;
      word = (word ?? '') + text;
      rawWord += line.slice(i, close + 1);
      i = close;
    } else if (PLAIN.test(ch)) {
      word = (word ?? '') + ch;
      rawWord += ch;
    } else if (ch === '>' || (ch === '&' && line[i + 1] === '>')) {
      const redirection = REDIRECTION.exec(line.slice(i));
      if (!redirection) return undefined;
      // Digits right before `>` name the descriptor (`2>&1`); another word before it is an argument.
      if (word !== undefined && ch === '>' && rawWord === word && /^\d+$/.test(word)) {
        word = undefined;
        rawWord = '';
      } else if (word !== undefined && ch === '&') return undefined;
      else endWord();
      i += redirection[0].length - 1;
    } else {
      const operator = OPERATORS.find((op) => line.startsWith(op, i));
      if (!operator || line.startsWith('|&', i) || line.startsWith(';;', i) || !endCommand()) return undefined;
      i += operator.length - 1;
      last = operator;
    }
  }
  endWord();
  if (words.length) {
    if (!endCommand()) return undefined;
  } else if (last !== ';') return undefined; // `ls |`: bash waits for the rest; nothing at all: no command

  return { commands, complex: [], opaqueName: false, writes: [], reads: [] };
}
