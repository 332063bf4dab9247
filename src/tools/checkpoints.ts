/**
 * File checkpoints: the content a file had before the session first changed it after each
 * user message, so `rewind_files` can restore it. Kept in the session's tool state.
 */
const KEY = 'checkpoints';

/** Checkpoints per user message uuid: file → content before (null: the file did not exist). */
export type Checkpoints = { current?: string; byMessage: Map<string, Map<string, string | null>> };

function checkpointsOf(state: Map<string, unknown>): Checkpoints {
  let value = state.get(KEY) as Checkpoints | undefined;
  if (!value) {
    value = { byMessage: new Map() };
    state.set(KEY, value);
  }
  return value;
}

/** Starts a new checkpoint for the user message `uuid`. */
export function beginCheckpoint(state: Map<string, unknown>, uuid: string): void {
  const value = checkpointsOf(state);
  value.current = uuid;
  if (!value.byMessage.has(uuid)) value.byMessage.set(uuid, new Map());
}

/** Remembers what `file` held before its first change since the current user message. */
export function recordCheckpoint(state: Map<string, unknown>, file: string, before: string | null): void {
  const value = checkpointsOf(state);
  if (!value.current) return;
  const files = value.byMessage.get(value.current)!;
  if (!files.has(file)) files.set(file, before);
}

/** Every checkpoint from `uuid` on, oldest first; undefined when `uuid` is unknown. */
export function checkpointsSince(
  state: Map<string, unknown>,
  uuid: string,
): Array<Map<string, string | null>> | undefined {
  const entries = [...checkpointsOf(state).byMessage.entries()];
  const at = entries.findIndex(([key]) => key === uuid);
  return at === -1 ? undefined : entries.slice(at).map(([, files]) => files);
}
