/**
 * Command lines the shell-reading tests share: the seeded generator of plain lines and near misses
 * (fast-parse.test.ts), the lines that put each character where a blank or a comment would change
 * what runs (characters.test.ts), and the permission table's commands (table.yaml).
 * grammar-parity.test.ts reads all of them with both of the grammar's parsers.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** Words the plain reader takes, and near misses it must leave to the grammar. */
const PLAIN = ['ls', '-la', 'a.txt', 'src/x.ts', '--format=%H', 'user@host:path', '+x', 'a,b', '-', '--', 'x=y', '=x'];
const QUOTED = ["'a b'", "'$HOME'", "'a\\b'", '"c d"', '"e\'f"', "''", '""', 'a"b c"d', "'FOO=1'", '"#x"'];
const NEAR = ['%1', "it's", '"$x"', '"a\\b"', '"!x"', '*.ts', 'a?', '[ab]', '{a,b}', '~', '~/x', '$x', '`x`', '#c'];
const NEAR_COMMANDS = ['a#b', '!', 'if', 'then', 'fi', 'time', 'do', 'FOO=1', 'A+=1', '{', '}', '(x)', 'a\\ b', '\\ls'];
/** Redirections that touch no file, glued to a word or not, and near misses that do touch one. */
const REDIRECTIONS = [
  '2>&1',
  '>/dev/null',
  '2>/dev/null',
  '&>/dev/null',
  '>&2',
  '1>&-',
  '>>/dev/null',
  'a2>&1',
  '"2">&1',
];
const NEAR_REDIRECTIONS = ['2>&1x', '>/dev/nullx', '2>x', '>&x', 'x&>/dev/null', '2>&', '<a.txt', '>|/dev/null'];
const WORDS = [
  ...PLAIN,
  ...PLAIN,
  ...QUOTED,
  ...NEAR,
  ...NEAR_COMMANDS,
  ...REDIRECTIONS,
  ...NEAR_REDIRECTIONS,
  'é',
  '\t',
];
const SEPARATORS = [
  ' ',
  ' ',
  ' ',
  '  ',
  ';',
  '; ',
  ' && ',
  '&&',
  ' || ',
  ' | ',
  '|',
  ' & ',
  ';;',
  '|&',
  ' > ',
  '<',
  '\n',
];

/**
 * A line of up to 7 words. A word after an operator starts a command: bash runs a program named
 * with a `/` as a path, not through command_not_found_handle, so command words come without one.
 */
export function seededLine(next: () => number): string {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  let out = '';
  let command = true;
  const words = 1 + Math.floor(next() * 7);
  for (let i = 0; i < words; i++) {
    const separator = i ? pick(SEPARATORS) : '';
    if (i) command = separator.trim() !== '';
    const word = pick(WORDS);
    out += separator + (command && word.includes('/') ? word.replaceAll('/', '_') : word);
    command = false;
  }
  return next() < 0.1 ? `${out}${pick(SEPARATORS)}` : out;
}

function characters(): string[] {
  const out: string[] = [];
  for (let c = 1; c <= 0x24f; c++) out.push(String.fromCodePoint(c));
  for (let c = 0x250; c <= 0xffff; c++) {
    const ch = String.fromCodePoint(c);
    if (/[\p{Z}\p{Cc}\p{Cf}]/u.test(ch)) out.push(ch);
  }
  out.push('日', 'ж', 'ا', '\u0301', '😀', '\u{e0001}');
  return out;
}

/** Lines where `c` sits between words, before a comment sign, after an operator, inside a word. */
export const TEMPLATES = [
  (c: string) => `p A${c}# ; x B`,
  (c: string) => `p ;${c}# x; y`,
  (c: string) => `p${c}q r`,
  (c: string) => `p A${c}B; x`,
  (c: string) => `p 'A${c}B' "C${c}D"`,
];

/** Every character of characters() in every template. */
export function characterLines(): string[] {
  const lines: string[] = [];
  for (const c of characters()) for (const template of TEMPLATES) lines.push(template(c));
  return lines;
}

/** The `cmd` of every row of the permission table. */
export function tableCommands(): string[] {
  const rows = parse(readFileSync(path.join(import.meta.dirname, 'table.yaml'), 'utf8')) as Array<{ cmd?: string }>;
  return rows.flatMap((row) => (row.cmd === undefined ? [] : [row.cmd]));
}
