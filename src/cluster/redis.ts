/**
 * `agentpipe/redis`: sessions on Redis. `redisSessionStore` is the official SDK's `sessionStore`
 * backed by Redis; `SessionLog` is a session's durable, fenced message log on a Redis Stream (the
 * base of agentpipe's worker pool). ioredis is loaded on first use.
 */
export { redisSessionStore } from './session-store.ts';
export type {
  FoldSessionSummary,
  RedisSessionStore,
  RedisSessionStoreOptions,
  StoreEntry,
  StoreKey,
  StoreSummary,
} from './session-store.ts';
export * from './log/public.ts';
export { RedisConnectionError } from './connection.ts';
export type { RedisConnectionOptions, RedisTarget } from './connection.ts';
