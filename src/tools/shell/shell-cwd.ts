/**
 * The Bash tool's folder across calls, as Claude Code 2.1.332 keeps it: a `cd` in one call holds for the next. A
 * call's line is run after a `cd` to the folder the last call ended in, and an EXIT trap reports the folder it ends in
 * (after a random marker, on stderr, taken out of the output).
 *
 * What the line reports is not trusted: a folder is kept only when its real path is a folder inside the working
 * folders (the cwd and `--add-dir`); anywhere else the shell goes back to the session's cwd with Claude Code's note
 * "Shell cwd was reset to <cwd>". The kept folder is judged again before each call (it may have been deleted, or
 * swapped for a link since): the call starts in its real path, or back in the cwd. The permission check judges the
 * line from that same start (PermissionQuery.shellCwd); the sandbox's folders stay the working folders.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { isInside } from '../../process/paths.ts';
import { expandPath, realPath } from '../paths.ts';
import type { ToolState } from '../state.ts';

/** Where one shell call starts, and the note to add to its output when the kept folder was dropped. */
export interface ShellStart {
  /** The folder the line starts in (a real path, or the session's cwd as given). */
  folder: string;
  /** The session's cwd. */
  cwd: string;
  /** The working folders, real paths. */
  folders: string[];
  /** Set when the folder kept from the last call is no longer one to start in. */
  note?: string;
}

/** Claude Code 2.1.332's words when the shell goes back to the session's folder. */
export const resetNote = (cwd: string): string => `Shell cwd was reset to ${cwd}`;

/** The real path of `dir` when it is a folder inside `folders`; undefined otherwise. */
function keptFolder(dir: string, folders: string[]): string | undefined {
  const real = realPath(dir);
  try {
    if (!statSync(real).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  return folders.some((root) => isInside(real, root)) ? real : undefined;
}

/** Where the next shell call of the session starts (see the module comment). */
export function shellStart(state: ToolState, cwd: string, directories: string[] = []): ShellStart {
  const folders = [cwd, ...directories].map((dir) => realPath(expandPath(cwd, dir)));
  const kept = state.shellCwd;
  if (kept === undefined) return { folder: cwd, cwd, folders };
  const folder = keptFolder(kept, folders);
  if (folder !== undefined) return { folder, cwd, folders };
  state.shellCwd = undefined;
  return { folder: cwd, cwd, folders, note: resetNote(cwd) };
}

/** A shell line that starts in `start.folder` and reports where it ends, and how to read that report. */
export function trackedLine(line: string, start: ShellStart): { line: string; marker: string } {
  const marker = `__agentpipe_cwd_${randomBytes(16).toString('hex')}:`;
  const trap = `trap 'printf "\\n%s%s" ${marker} "$(pwd -P)" >&2' EXIT`;
  // One line before the command's own, so its errors keep their line numbers. `cd -P` and the check of $PWD: the
  // folder may have been swapped for a link since the permission check judged it (a parallel call); then not run.
  const folder = quoted(start.folder);
  const cd =
    start.folder === start.cwd ? '' : ` { cd -P -- ${folder} && [ "$PWD" = ${folder} ]; } || exit 1; unset OLDPWD;`;
  return { line: `${trap};${cd} ${line}`, marker };
}

/** `text` in single quotes for bash. */
function quoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Stderr without the end report, and the folder reported (the last report: the trap's runs last). */
export function takeReport(stderr: string, marker: string): { stderr: string; end?: string } {
  const at = stderr.lastIndexOf(`\n${marker}`);
  if (at === -1) return { stderr };
  return { stderr: stderr.slice(0, at), end: stderr.slice(at + 1 + marker.length) };
}

/**
 * Keeps the folder a call ended in for the next call (see the module comment); returns the reset note when it is
 * outside the working folders. No report (the line replaced its shell, was killed): the start folder stays.
 */
export function keepShellFolder(state: ToolState, start: ShellStart, end: string | undefined): string | undefined {
  if (end === undefined || end === '') return undefined;
  const folder = keptFolder(end, start.folders);
  if (folder === undefined) {
    state.shellCwd = undefined;
    return resetNote(start.cwd);
  }
  state.shellCwd = folder === realPath(start.cwd) ? undefined : folder;
  return undefined;
}
