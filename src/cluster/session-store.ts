/**
 * The official SDK's `SessionStore` backed by Redis (`agentpipe/redis`): pass
 * `sessionStore: redisSessionStore({ redis: 'redis://…' })` to `query()` and the session's
 * transcript is mirrored to Redis as it runs, and resumes from Redis on any machine, with
 * agentpipe or Claude Code as the backend.
 *
 * Same semantics as the SDK's InMemorySessionStore (entries in append order per key, `null` for
 * a key never written, subpath keys for subagent transcripts, listings per project, summaries
 * folded with the SDK's `foldSessionSummary`), plus what the SDK asks of a real adapter: an
 * append is atomic (one Lua script), and an entry whose `uuid` is already stored under the same
 * key is not stored again (retries and imports are idempotent; `dedupe: false` keeps every copy
 * as InMemorySessionStore does).
 *
 * Keys: a session's keys share one hash tag, `<prefix>:{<project>/<session>}:…` (one Redis
 * Cluster slot, so one script updates them atomically): `:main` / `:sub:<subpath>` (lists of
 * entry JSON), `:meta:main` / `:meta:sub:<subpath>` (hashes: `mtime`, and for the main
 * transcript the summary and its version), `:uuids:…` (sets), `:subkeys` (sorted set, in first
 * append order). The project's index `<prefix>:{<project>}:sessions` (sorted set, score = mtime)
 * lives on its own slot and is updated right after the append (and after a delete): a process
 * that dies between the two leaves the listing one step behind until the session's next append.
 * Names are URI-encoded.
 */
import type { Redis } from 'ioredis';
import { openRedis, type Connection, type RedisConnectionOptions, type RedisTarget } from './connection.ts';

/** A transcript's key in the store (the SDK's `SessionKey`). */
export interface StoreKey {
  projectKey: string;
  sessionId: string;
  subpath?: string;
}

/** One transcript line (the SDK's `SessionStoreEntry`). */
export interface StoreEntry {
  type: string;
  uuid?: string;
  timestamp?: string;
  [k: string]: unknown;
}

/** A session's incrementally folded summary (the SDK's `SessionSummaryEntry`). */
export interface StoreSummary {
  sessionId: string;
  mtime: number;
  data: Record<string, unknown>;
}

/** The SDK's `foldSessionSummary`. */
export type FoldSessionSummary = (
  prev: StoreSummary | undefined,
  key: StoreKey,
  entries: StoreEntry[],
  options?: { mtime?: number },
) => StoreSummary;

/** Every method of the SDK's `SessionStore`, plus `close()`. */
export interface RedisSessionStore {
  append(key: StoreKey, entries: StoreEntry[]): Promise<void>;
  load(key: StoreKey): Promise<StoreEntry[] | null>;
  listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>>;
  listSessionSummaries(projectKey: string): Promise<StoreSummary[]>;
  delete(key: StoreKey): Promise<void>;
  listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]>;
  /** Closes the connection the store opened (a client passed in is left open). */
  close(): Promise<void>;
}

/** Options of redisSessionStore. */
export interface RedisSessionStoreOptions extends RedisConnectionOptions {
  /** A `redis://` URL (the store opens its connection on first use) or a client you own. */
  redis: RedisTarget;
  /** Key prefix. Default `ap:sdk`. */
  prefix?: string;
  /** Skip entries whose uuid is already stored under the key (default true, as the SDK recommends). */
  dedupe?: boolean;
  /** The summary fold; default: the SDK's own `foldSessionSummary` (imported on first use). */
  foldSessionSummary?: FoldSessionSummary;
}

// KEYS: list, meta, uuids, subkeys. ARGV: main ('1'|'0'), expected summary version ('' = none),
// mtime, summary JSON, subpath, dedupe ('1'|'0'), then (uuid, json) pairs. -1: the summary changed meanwhile.
const APPEND = `
if ARGV[1] == '1' then
  local ver = redis.call('HGET', KEYS[2], 'ver') or ''
  if ver ~= ARGV[2] then return -1 end
  redis.call('HSET', KEYS[2], 'ver', tostring((tonumber(ver) or 0) + 1), 'summary', ARGV[4])
else
  if redis.call('ZSCORE', KEYS[4], ARGV[5]) == false then
    local top = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
    redis.call('ZADD', KEYS[4], (tonumber(top[2]) or 0) + 1, ARGV[5])
  end
end
redis.call('HSET', KEYS[2], 'mtime', ARGV[3])
local n = 0
for i = 7, #ARGV, 2 do
  local uuid, json = ARGV[i], ARGV[i + 1]
  if ARGV[6] ~= '1' or uuid == '' or redis.call('SADD', KEYS[3], uuid) == 1 then
    redis.call('RPUSH', KEYS[1], json)
    n = n + 1
  end
end
return n`;

// KEYS: the session's tag prefix. ARGV: '1' to delete the whole session, or '0' and the (encoded) subpath.
// The per-subpath keys are named here, not in KEYS: they share the session's hash tag (same slot).
const DELETE = `
local base = KEYS[1]
local function drop(part)
  redis.call('DEL', base .. ':' .. part, base .. ':meta:' .. part, base .. ':uuids:' .. part)
end
if ARGV[1] == '1' then
  drop('main')
  for _, sub in ipairs(redis.call('ZRANGE', base .. ':subkeys', 0, -1)) do drop('sub:' .. sub) end
  redis.call('DEL', base .. ':subkeys')
else
  drop('sub:' .. ARGV[2])
  redis.call('ZREM', base .. ':subkeys', ARGV[2])
end
return 1`;

const SCRIPTS = {
  agentpipeStoreAppend: { numberOfKeys: 4, lua: APPEND },
  agentpipeStoreDelete: { numberOfKeys: 1, lua: DELETE },
} as const;

type ScriptCommands = { [K in keyof typeof SCRIPTS]: (...args: Array<string | number>) => Promise<unknown> };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a stored entry; throws on anything but a JSON object with a string `type`. */
function parseEntry(json: string, where: string): StoreEntry {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`${where}: a stored entry is not JSON (${(error as Error).message})`);
  }
  if (!isObject(value) || typeof value.type !== 'string')
    throw new Error(`${where}: a stored entry is not an object with a string "type"`);
  return value as StoreEntry;
}

/** Parses a stored summary; throws when its shape is wrong. */
function parseSummary(json: string, where: string): StoreSummary {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`${where}: the stored summary is not JSON (${(error as Error).message})`);
  }
  if (
    !isObject(value) ||
    typeof value.sessionId !== 'string' ||
    typeof value.mtime !== 'number' ||
    !isObject(value.data)
  ) {
    throw new Error(`${where}: the stored summary is not { sessionId, mtime, data }`);
  }
  return { sessionId: value.sessionId, mtime: value.mtime, data: value.data };
}

/** A ZRANGE WITHSCORES reply as (member, score) pairs: flat under RESP2, pairs under RESP3. */
function scored(reply: unknown): Array<[string, number]> {
  if (!Array.isArray(reply)) throw new Error('unexpected ZRANGE reply from Redis');
  const items = reply as unknown[];
  const pairs: Array<[unknown, unknown]> = items.every(Array.isArray)
    ? (items as unknown[][]).map((p) => [p[0], p[1]])
    : Array.from({ length: Math.floor(items.length / 2) }, (_, i) => [items[2 * i], items[2 * i + 1]]);
  return pairs.map(([member, score]) => {
    if (typeof member !== 'string' || !Number.isFinite(Number(score)))
      throw new Error('unexpected ZRANGE reply from Redis');
    return [member, Number(score)];
  });
}

/** The keys of one transcript. */
function keysOf(
  prefix: string,
  key: StoreKey,
): { tag: string; list: string; meta: string; uuids: string; subkeys: string; index: string } {
  if (key.subpath === '') throw new TypeError('SessionKey.subpath must not be empty (omit it for the main transcript)');
  const project = encodeURIComponent(key.projectKey);
  const tag = `${prefix}:{${project}/${encodeURIComponent(key.sessionId)}}`;
  const part = key.subpath === undefined ? 'main' : `sub:${encodeURIComponent(key.subpath)}`;
  return {
    tag,
    list: `${tag}:${part}`,
    meta: `${tag}:meta:${part}`,
    uuids: `${tag}:uuids:${part}`,
    subkeys: `${tag}:subkeys`,
    index: `${prefix}:{${project}}:sessions`,
  };
}

/** The SDK's SessionStore on Redis (see the file comment for the layout and guarantees). */
export function redisSessionStore(options: RedisSessionStoreOptions): RedisSessionStore {
  const prefix = options.prefix ?? 'ap:sdk';
  const flag = (options.dedupe ?? true) ? '1' : '0';
  let connection: Promise<Connection> | undefined;
  let fold: Promise<FoldSessionSummary> | undefined;

  const conn = (): Promise<Connection> => {
    if (connection) return connection;
    const connecting = openRedis(options.redis, options).then((c) => {
      for (const [name, definition] of Object.entries(SCRIPTS))
        if (!(name in c.client)) c.client.defineCommand(name, definition);
      return c;
    });
    // A failed connect is not cached: the next call tries again.
    connecting.catch(() => {
      if (connection === connecting) connection = undefined;
    });
    connection = connecting;
    return connecting;
  };
  const call = async <T>(run: (client: Redis & ScriptCommands) => Promise<T>): Promise<T> => {
    const c = await conn();
    try {
      return await run(c.client as Redis & ScriptCommands);
    } catch (error) {
      throw c.wrap(error);
    }
  };
  const folder = (): Promise<FoldSessionSummary> => {
    if (options.foldSessionSummary) return Promise.resolve(options.foldSessionSummary);
    fold ??= import('@anthropic-ai/claude-agent-sdk').then(
      (sdk) => sdk.foldSessionSummary as unknown as FoldSessionSummary,
      (error: Error) => {
        fold = undefined;
        throw new Error(
          `agentpipe/redis: session summaries need @anthropic-ai/claude-agent-sdk (or the foldSessionSummary ` +
            `option): ${error.message}`,
        );
      },
    );
    return fold;
  };
  const pairs = (entries: StoreEntry[]): string[] =>
    entries.flatMap((e) => [typeof e.uuid === 'string' ? e.uuid : '', JSON.stringify(e)]);

  return {
    async append(key, entries) {
      const k = keysOf(prefix, key);
      const where = `session ${key.sessionId}`;
      if (key.subpath !== undefined) {
        const subpath = encodeURIComponent(key.subpath);
        await call((c) =>
          c.agentpipeStoreAppend(
            k.list,
            k.meta,
            k.uuids,
            k.subkeys,
            '0',
            '',
            Date.now(),
            '',
            subpath,
            flag,
            ...pairs(entries),
          ),
        );
        return;
      }
      const foldSummary = await folder();
      // Optimistic concurrency on the summary: fold, then write only if nobody appended meanwhile.
      for (let attempt = 0; attempt < 50; attempt++) {
        const [ver, summary, stored] = await call((c) => c.hmget(k.meta, 'ver', 'summary', 'mtime'));
        const mtime = Math.max(Date.now(), Number(stored ?? 0) + 1);
        const prev = summary ? parseSummary(summary, where) : undefined;
        const next = foldSummary(prev, key, entries, { mtime });
        const summaryJson = JSON.stringify(next);
        const keys = [k.list, k.meta, k.uuids, k.subkeys];
        const answer = await call((c) =>
          c.agentpipeStoreAppend(...keys, '1', ver ?? '', mtime, summaryJson, '', flag, ...pairs(entries)),
        );
        if (answer === -1) continue;
        // GT: a concurrent append's later mtime is never overwritten by an earlier one.
        await call((c) => c.zadd(k.index, 'GT', mtime, key.sessionId));
        return;
      }
      throw new Error(`${where}: append kept conflicting with concurrent appends`);
    },

    async load(key) {
      const k = keysOf(prefix, key);
      // One transaction: a concurrent delete cannot make it "exists, but empty".
      const replies = await call((c) => c.multi().exists(k.meta).lrange(k.list, 0, -1).exec());
      if (!replies || replies.length !== 2)
        throw new Error(`session ${key.sessionId}: the load transaction was aborted`);
      const [[existsError, exists], [listError, list]] = replies as [[Error | null, unknown], [Error | null, unknown]];
      const failed = existsError ?? listError;
      if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
      if (exists === 0) return null;
      if (!Array.isArray(list) || !list.every((json) => typeof json === 'string'))
        throw new Error(`session ${key.sessionId}: unexpected LRANGE reply`);
      return list.map((json) => parseEntry(json, `session ${key.sessionId}`));
    },

    async listSessions(projectKey) {
      const index = keysOf(prefix, { projectKey, sessionId: '' }).index;
      const reply: unknown = await call((c) => c.zrange(index, 0, '-1', 'WITHSCORES'));
      return scored(reply).map(([sessionId, score]) => ({ sessionId, mtime: Math.floor(score) }));
    },

    async listSessionSummaries(projectKey) {
      const sessions = await this.listSessions(projectKey);
      const summaries = await call((c) =>
        Promise.all(
          sessions.map((s) => c.hget(keysOf(prefix, { projectKey, sessionId: s.sessionId }).meta, 'summary')),
        ),
      );
      return summaries.flatMap((json, i) => (json ? [parseSummary(json, `session ${sessions[i]!.sessionId}`)] : []));
    },

    async delete(key) {
      const k = keysOf(prefix, key);
      const whole = key.subpath === undefined;
      await call((c) => c.agentpipeStoreDelete(k.tag, whole ? '1' : '0', encodeURIComponent(key.subpath ?? '')));
      if (whole) await call((c) => c.zrem(k.index, key.sessionId));
    },

    async listSubkeys(key) {
      const k = keysOf(prefix, key);
      const subkeys = await call((c) => c.zrange(k.subkeys, 0, '-1'));
      return subkeys.map((s) => decodeURIComponent(s));
    },

    async close() {
      const c = connection;
      connection = undefined;
      await (await c?.catch(() => undefined))?.close();
    },
  };
}
