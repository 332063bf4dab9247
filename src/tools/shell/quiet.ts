/**
 * Whether a command line is expected to print nothing when it succeeds (Bash's `noOutputExpected`), as
 * Claude Code 2.1.332 tells: every simple command of the line is one of the file and shell-state
 * commands that are silent on success (`touch a && mkdir b`), with no variable assignment before it.
 */
import { analyzeShell } from './parse.ts';

/** Claude Code's list of commands that print nothing on success. */
const SILENT = new Set([
  ...['mv', 'cp', 'rm', 'mkdir', 'rmdir', 'chmod', 'chown', 'chgrp', 'touch', 'ln'],
  ...['cd', 'export', 'unset', 'wait'],
]);

/** True when every simple command of `line` is a silent one. */
export async function expectsNoOutput(line: string): Promise<boolean> {
  const { commands } = await analyzeShell(line);
  return commands.length > 0 && commands.every((c) => !c.assignments && SILENT.has(c.argv[0] ?? ''));
}
