/** A session's log on Redis (see session-log.ts): what the rest of the cluster imports. */
export { SessionLog, type SessionLogOptions } from './session-log.ts';
export { FencedError, fenced } from './fence.ts';
export { DATA_LOST } from './epoch.ts';
export { ArchiveRefusedError, transcriptLine } from './archive.ts';
export { isEphemeral, type AppendRecord } from './durable.ts';
export { compareStreamIds, START_ID, STREAM_ID, streamIdTime, type SessionKeys } from './keys.ts';
export { isInternal, isTranscriptOnly } from './entries.ts';
export type {
  FollowedEntry,
  InputEntry,
  LiveEntry,
  LogEntry,
  LogMessage,
  SessionEndMarker,
  ToolStartLine,
} from './entries.ts';
