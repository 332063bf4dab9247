/**
 * Which files the model has read in this session, and when (Claude Code 2.1.332's read-before-write rule): Edit and
 * Write of a file the model has never read run (the result says the file's content is not in the model's context);
 * a change to a file that changed on disk since the model last saw it is refused. Kept in the session's tool state.
 */
import { realpath, stat } from 'node:fs/promises';
import type { FileSeen, ToolState } from './state.ts';

/** Claude Code's words, so clients and models that know them recognise them. */
export const NOT_READ = 'File has not been read yet. Read it first before writing to it.';
export const CHANGED_SINCE_READ =
  'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';

const reads = (state: ToolState): Map<string, FileSeen> => state.fileReads;

/** The file's real path (symlinks resolved) when it exists, else the path as given. */
async function keyOf(file: string): Promise<string> {
  return realpath(file).catch(() => file);
}

/**
 * Notes that the model has seen `file` as it is now (after a Read, or after its own write). `notInContext`: the model
 * changed it without having seen the whole of it (an Edit of a file it never read), so it knows the file is current
 * but not what it holds.
 */
export async function recordRead(state: ToolState, file: string, notInContext = false): Promise<void> {
  // Missing: nothing to record.
  const info = await stat(file).catch(() => undefined);
  if (info) reads(state).set(await keyOf(file), { mtimeMs: info.mtimeMs, ...(notInContext && { notInContext }) });
}

/** Notes that the client has shown the model `file` as it was at `mtimeMs` (`seed_read_state`). */
export async function seedRead(state: ToolState, file: string, mtimeMs: number): Promise<void> {
  reads(state).set(await keyOf(file), { mtimeMs });
}

/** Where `file` stands for a change by the model. */
export type WriteStanding =
  /** It does not exist, or the model has seen it as it is now. */
  | { kind: 'current' }
  /** It exists and the model has never seen it whole (Claude Code 2.1.332 lets Edit and Write change it). */
  | { kind: 'unread' }
  /** It changed on disk since the model last saw it: refused, the model must read it again. */
  | { kind: 'changed'; refusal: string };

/** Where `file` stands now for Edit or Write (a file that does not exist may be created). */
export async function writeStanding(state: ToolState, file: string): Promise<WriteStanding> {
  // Missing: a new file, nothing read to be stale.
  const info = await stat(file).catch(() => undefined);
  if (!info) return { kind: 'current' };
  const seen = reads(state).get(await keyOf(file));
  if (seen === undefined) return { kind: 'unread' };
  // Any other time, older too: a copy with its times kept (`cp -p`, `touch -r`) renamed over the file is a change.
  if (info.mtimeMs !== seen.mtimeMs) return { kind: 'changed', refusal: CHANGED_SINCE_READ };
  return seen.notInContext ? { kind: 'unread' } : { kind: 'current' };
}

/**
 * Why the model may not change `file` now, or undefined when it may, for the tools that still want a read first
 * (NotebookEdit: a cell id is only known from a read).
 */
export async function writeRefusal(state: ToolState, file: string): Promise<string | undefined> {
  const standing = await writeStanding(state, file);
  if (standing.kind === 'changed') return standing.refusal;
  return standing.kind === 'unread' ? NOT_READ : undefined;
}
