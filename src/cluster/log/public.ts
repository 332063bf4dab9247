/**
 * What `agentpipe/redis` (cluster/redis.ts) publishes of a session's log; log/index.ts adds what only the cluster
 * itself uses.
 */
export { SessionLog, type SessionLogOptions } from './session-log.ts';
export { FencedError } from './fence.ts';
export { ArchiveRefusedError } from './archive.ts';
export { isEphemeral } from './durable.ts';
export type { SessionKeys } from './keys.ts';
export type { FollowedEntry, InputEntry, LiveEntry, LogEntry, LogMessage, SessionEndMarker } from './entries.ts';
