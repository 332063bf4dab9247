/**
 * Walks the simple commands of a parsed line in order, as bash will run them: the folder each
 * runs in (a `cd` moves the ones after it; the walk keeps every folder a command may run in, the
 * logical and the physical one after a `cd` through a link), each command's globs expanded in
 * that folder (glob.ts), and the read-only verdict on the words the program will get. What comes
 * out is every word that may name a file, with the folder it is relative to; the folders read
 * recursively; and where git runs.
 */
import os from 'node:os';
import path from 'node:path';
import { realPath, resolvedPath } from '../paths.ts';
import { expandPattern } from './glob.ts';
import type { ShellAnalysis, SimpleCommand } from './parse.ts';
import { readOnlyProgram, readOnlyUse } from './read-only.ts';

/** A word that may name a file, and the folder it is relative to. */
export interface Named {
  word: string;
  dir: string;
}

/** What the walk found. */
export interface LineWalk {
  /** Every word that may name a file the line touches. */
  named: Named[];
  /** Folders a command reads every file of. */
  roots: Named[];
  /** Folders a command walks for names only. */
  listed: Named[];
  /** Every command is read-only with the words it will get. */
  readOnly: boolean;
  /** Why not, for the first command that is not. */
  notReadOnly?: string;
  /** A glob whose words cannot be known beforehand (a brace expansion, too many files). */
  unexpanded: boolean;
  /** Where git runs, and whether it may print file contents. */
  git: Array<{ dir: string; content: boolean }>;
  /** A folder the line moves to that cannot be known (`cd` to home, `cd -`, `popd`). */
  leaves?: string;
}

/** More folders than this after the `cd`s of one line: unknown. */
const MAX_DIRS = 16;

/**
 * Walks `analysis` from `cwd`; see the module comment. `allFiles`: every command's globs are
 * expanded, for deny rules on reads; else only those of commands that may be read-only (a
 * program off the list is judged on its words as written, sparing `rm -rf dir/*` a walk).
 */
export function walkLine(analysis: ShellAnalysis, cwd: string, allFiles = true): LineWalk {
  const out: LineWalk = { named: [], roots: [], listed: [], readOnly: true, unexpanded: false, git: [] };
  let dirs = [cwd];
  for (const command of analysis.commands) {
    judge(command, dirs, out, allFiles);
    if (isMove(command.argv[0])) dirs = moved(command.argv, dirs, out);
  }
  return out;
}

const isMove = (name: string | undefined) => name === 'cd' || name === 'pushd' || name === 'popd';

function judge(command: SimpleCommand, dirs: string[], out: LineWalk, allFiles: boolean): void {
  const notReadOnly = (why: string) => {
    out.readOnly = false;
    out.notReadOnly ??= why;
  };
  if (command.assignments) notReadOnly('NAME=value changes what the command runs');
  if (!allFiles && command.globbed && !readOnlyProgram(command.argv[0])) {
    notReadOnly(`${command.argv[0]} is not a program known to only read`);
    for (const dir of dirs) out.named.push(...pathOperands(command.argv).map((word) => ({ word, dir })));
    return;
  }
  for (const dir of dirs) {
    const expansion = expanded(command, dir);
    if (!expansion) {
      out.unexpanded = true;
      notReadOnly('a word expands to file names that cannot be known beforehand');
      out.named.push(...pathOperands(command.argv).map((word) => ({ word, dir })));
      continue;
    }
    const { argv, globbed } = expansion;
    // A file named like an option (`--pre=sh`, `--output=x`) that a glob hands the program.
    const injected = globbed.find((word) => word.startsWith('-'));
    if (injected) notReadOnly(`a glob expands to ${injected}, which the program reads as an option`);
    const verdict = readOnlyUse(argv);
    if ('refused' in verdict) {
      notReadOnly(verdict.refused);
      out.named.push(...pathOperands(argv).map((word) => ({ word, dir })));
      continue;
    }
    out.named.push(...verdict.paths.map((word) => ({ word, dir })));
    out.roots.push(...verdict.roots.map((word) => ({ word, dir })));
    out.listed.push(...(verdict.listed ?? []).map((word) => ({ word, dir })));
    if (verdict.git) out.git.push({ dir, content: verdict.git.content });
  }
}

/**
 * The command's words with its globs expanded in `dir` (bash's order kept), and the words the
 * globs made; undefined when they cannot be known.
 */
function expanded(command: SimpleCommand, dir: string): { argv: string[]; globbed: string[] } | undefined {
  if (!command.globbed) return { argv: command.argv, globbed: [] };
  const argv: string[] = [];
  const globbed: string[] = [];
  for (let i = 0; i < command.argv.length; i++) {
    const pattern = command.patterns[i];
    const words = pattern === undefined ? [command.argv[i]!] : expandPattern(pattern, dir);
    if (!words) return undefined;
    argv.push(...words);
    if (pattern !== undefined) globbed.push(...words);
  }
  return { argv, globbed };
}

/** The folders after `cd`, `pushd` or `popd` (both the logical and the physical one), added to `dirs`. */
function moved(argv: string[], dirs: string[], out: LineWalk): string[] {
  const [name, ...args] = argv;
  const operands = args.filter((a) => !/^-[LPe@]+$/.test(a));
  if (name === 'popd' || operands.includes('-')) {
    out.leaves ??= name === 'popd' ? 'the directory stack' : '-';
    return dirs;
  }
  const target = operands[0];
  const home = process.env.HOME || os.homedir();
  const next = new Set(dirs);
  for (const dir of dirs) {
    if (target === undefined || target === '~') {
      out.leaves ??= '~';
      next.add(realPath(home));
      continue;
    }
    next.add(realPath(path.resolve(dir, target.startsWith('~/') ? path.join(home, target.slice(2)) : target)));
    next.add(resolvedPath(dir, target));
  }
  if (next.size > MAX_DIRS) {
    out.unexpanded = true;
    out.readOnly = false;
    out.notReadOnly ??= 'too many folders to follow';
  }
  return [...next].slice(0, MAX_DIRS);
}

/**
 * Every word of a command that may name a file it touches: operands, `--opt=value` values,
 * values glued to short options (`-fFILE`), and the path part of `rev:path` and `:path`. Generous
 * on purpose: it feeds deny checks, where a false match asks, and a missed one leaks.
 */
export function pathOperands(argv: string[]): string[] {
  const out: string[] = [];
  for (const arg of argv.slice(1)) {
    if (arg === '-' || arg === '--' || arg === '') continue;
    const long = /^--[\w-]+=(.+)$/s.exec(arg);
    if (long) out.push(long[1]!);
    else if (/^-[A-Za-z]/.test(arg)) {
      if (arg.length > 2) out.push(arg.slice(2));
    } else {
      out.push(arg);
      const colon = arg.indexOf(':');
      if (colon !== -1 && colon < arg.length - 1) out.push(arg.slice(colon + 1).replace(/^\d:/, ''));
    }
  }
  return out;
}
