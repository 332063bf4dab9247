/**
 * File checkpoints: the content a file had before the session first changed it after each
 * user message, so `rewind_files` can restore it. Kept in the session's tool state.
 */
import type { Checkpoints, ToolState } from './state.ts';

export type { Checkpoints } from './state.ts';

const checkpointsOf = (state: ToolState): Checkpoints => state.checkpoints;

/** Starts a new checkpoint for the user message `uuid`. */
export function beginCheckpoint(state: ToolState, uuid: string): void {
  const value = checkpointsOf(state);
  value.current = uuid;
  if (!value.byMessage.has(uuid)) value.byMessage.set(uuid, new Map());
}

/** Remembers what `file` held before its first change since the current user message. */
export function recordCheckpoint(state: ToolState, file: string, before: string | null): void {
  const value = checkpointsOf(state);
  if (!value.current) return;
  const files = value.byMessage.get(value.current)!;
  if (!files.has(file)) files.set(file, before);
}

/** Every checkpoint from `uuid` on, oldest first; undefined when `uuid` is unknown. */
export function checkpointsSince(state: ToolState, uuid: string): Array<Map<string, string | null>> | undefined {
  const entries = [...checkpointsOf(state).byMessage.entries()];
  const at = entries.findIndex(([key]) => key === uuid);
  return at === -1 ? undefined : entries.slice(at).map(([, files]) => files);
}
