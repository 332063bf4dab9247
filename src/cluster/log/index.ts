/** A session's log on Redis (see session-log.ts): what the rest of the cluster imports. */
export * from './public.ts';
export { fenced } from './fence.ts';
export { DATA_LOST } from './epoch.ts';
export { transcriptLine } from './archive.ts';
export type { AppendOrder, AppendRecord } from './durable.ts';
export { AppendOrderError } from './durable.ts';
export { compareStreamIds, START_ID, STREAM_ID, streamIdTime } from './keys.ts';
export { isInternal, isTranscriptOnly } from './entries.ts';
export type { ToolStartLine } from './entries.ts';
