/**
 * The path a permission prompt for a Bash line names (`can_use_tool`'s `blocked_path`), as Claude
 * Code 2.1.332 names it: the first file or folder the line's first writing command creates,
 * changes or removes (`touch`, `mkdir`, `rm`, `rmdir`, `mv`, `cp`: their first path argument,
 * `cp a b` names `a` as Claude Code does), else the first file an output redirection writes.
 * Prompt details only: the permission check (facts.ts) decides, this names what it asks about.
 */
import path from 'node:path';
import { expandPath } from '../paths.ts';
import { analyzeShell } from './parse.ts';

/** The programs whose path arguments Claude Code checks as written (created, changed or removed). */
const WRITERS = new Set(['touch', 'mkdir', 'rm', 'rmdir', 'mv', 'cp']);

/** What a Bash prompt names: the path, and whether a program (not a redirection) writes it. */
export interface BlockedPath {
  path: string;
  by: 'command' | 'redirect';
  /** The program that writes it (for `by: 'command'`). */
  program?: string;
}

/** The first path argument of a writing command (options and what follows `--` told apart). */
function firstPathArgument(argv: string[]): string | undefined {
  let options = true;
  for (const word of argv.slice(1)) {
    if (options && word === '--') options = false;
    else if (!options || !word.startsWith('-') || word === '-') return word;
  }
  return undefined;
}

/** The path `line` (run in `cwd`) would write first, as a prompt names it; undefined when it names none. */
export async function blockedPath(line: string, cwd: string): Promise<BlockedPath | undefined> {
  const analysis = await analyzeShell(line);
  for (const command of analysis.commands) {
    const program = command.argv[0]?.split('/').pop();
    if (!program || !WRITERS.has(program)) continue;
    const word = firstPathArgument(command.argv);
    if (word !== undefined) return { path: path.resolve(expandPath(cwd, word)), by: 'command', program };
  }
  const written = analysis.writes[0];
  return written === undefined ? undefined : { path: path.resolve(expandPath(cwd, written)), by: 'redirect' };
}
