/**
 * Which files the model has read in this session, and when (Claude Code's read-before-write
 * rule): Edit, and Write over an existing file, are refused for a file the model has not read,
 * or that changed on disk since it was read. Kept in the session's tool state.
 */
import { realpath, stat } from 'node:fs/promises';
import type { ToolState } from './state.ts';

/** Claude Code's words, so clients and models that know them recognise them. */
export const NOT_READ = 'File has not been read yet. Read it first before writing to it.';
export const CHANGED_SINCE_READ =
  'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';

const reads = (state: ToolState): Map<string, number> => state.fileReads;

/** The file's real path (symlinks resolved) when it exists, else the path as given. */
async function keyOf(file: string): Promise<string> {
  return realpath(file).catch(() => file);
}

/** Notes that the model has seen `file` as it is now (after a Read, or after its own write). */
export async function recordRead(state: ToolState, file: string): Promise<void> {
  // Missing: nothing to record.
  const info = await stat(file).catch(() => undefined);
  if (info) reads(state).set(await keyOf(file), info.mtimeMs);
}

/** Notes that the client has shown the model `file` as it was at `mtimeMs` (`seed_read_state`). */
export async function seedRead(state: ToolState, file: string, mtimeMs: number): Promise<void> {
  reads(state).set(await keyOf(file), mtimeMs);
}

/** Why the model may not change `file` now, or undefined when it may (a file that does not exist may be created). */
export async function writeRefusal(state: ToolState, file: string): Promise<string | undefined> {
  // Missing: a new file, nothing read to be stale.
  const info = await stat(file).catch(() => undefined);
  if (!info) return undefined;
  const seen = reads(state).get(await keyOf(file));
  if (seen === undefined) return NOT_READ;
  return info.mtimeMs > seen ? CHANGED_SINCE_READ : undefined;
}
