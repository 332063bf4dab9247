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
import { errorMessage } from '../process/errors.ts';
import type { Redis } from 'ioredis';
import { openRedis, type Connection, type RedisConnectionOptions, type RedisTarget } from './connection.ts';
import { callScript } from './log/lua/call.ts';
import { parseEntry, parseSummary, scored } from './store/parse.ts';
import { STORE_APPEND, STORE_DELETE } from './store/scripts.ts';

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

/** The package that brings the SDK's own summary fold (an optional peer dependency of agentpipe). */
const SDK = '@anthropic-ai/claude-agent-sdk';

/** The SDK's SessionStore on Redis (see the file comment for the layout and guarantees). */
export function redisSessionStore(options: RedisSessionStoreOptions): RedisSessionStore {
  return new RedisStore(options);
}

class RedisStore implements RedisSessionStore {
  readonly #options: RedisSessionStoreOptions;
  readonly #prefix: string;
  readonly #dedupe: '1' | '0';
  #connection?: Promise<Connection>;
  #fold?: Promise<FoldSessionSummary>;

  constructor(options: RedisSessionStoreOptions) {
    this.#options = options;
    this.#prefix = options.prefix ?? 'ap:sdk';
    this.#dedupe = (options.dedupe ?? true) ? '1' : '0';
  }

  async append(key: StoreKey, entries: StoreEntry[]): Promise<void> {
    const k = keysOf(this.#prefix, key);
    const pairs = entries.flatMap((e) => [typeof e.uuid === 'string' ? e.uuid : '', JSON.stringify(e)]);
    const subpath = key.subpath === undefined ? undefined : encodeURIComponent(key.subpath);
    const argv = {
      main: '0',
      version: '',
      mtime: Date.now(),
      summary: '',
      subpath: subpath ?? '',
      dedupe: this.#dedupe,
    };
    if (subpath !== undefined) {
      await this.#call((c) => callScript(c, STORE_APPEND, k, argv, pairs));
      return;
    }
    const foldSummary = await this.#folder();
    const where = `session ${key.sessionId}`;
    // Optimistic concurrency on the summary: fold, then write only if nobody appended meanwhile.
    for (let attempt = 0; attempt < 50; attempt++) {
      const [ver, summary, stored] = await this.#call((c) => c.hmget(k.meta, 'ver', 'summary', 'mtime'));
      const mtime = Math.max(Date.now(), Number(stored ?? 0) + 1);
      const prev = summary ? parseSummary(summary, where) : undefined;
      const next = JSON.stringify(foldSummary(prev, key, entries, { mtime }));
      const main = { ...argv, main: '1', version: ver ?? '', mtime, summary: next };
      if ((await this.#call((c) => callScript(c, STORE_APPEND, k, main, pairs))) === -1) continue;
      // GT: a concurrent append's later mtime is never overwritten by an earlier one.
      await this.#call((c) => c.zadd(k.index, 'GT', mtime, key.sessionId));
      return;
    }
    throw new Error(`${where}: append kept conflicting with concurrent appends`);
  }

  async load(key: StoreKey): Promise<StoreEntry[] | null> {
    const k = keysOf(this.#prefix, key);
    // One transaction: a concurrent delete cannot make it "exists, but empty".
    const replies = await this.#call((c) => c.multi().exists(k.meta).lrange(k.list, 0, -1).exec());
    if (!replies || replies.length !== 2) throw new Error(`session ${key.sessionId}: the load transaction was aborted`);
    const [[existsError, exists], [listError, list]] = replies;
    const failed = existsError ?? listError;
    if (failed) throw failed;
    if (exists === 0) return null;
    if (!Array.isArray(list) || !list.every((json) => typeof json === 'string'))
      throw new Error(`session ${key.sessionId}: unexpected LRANGE reply`);
    return list.map((json) => parseEntry(json, `session ${key.sessionId}`));
  }

  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    const index = keysOf(this.#prefix, { projectKey, sessionId: '' }).index;
    const reply: unknown = await this.#call((c) => c.zrange(index, 0, '-1', 'WITHSCORES'));
    return scored(reply).map(([sessionId, score]) => ({ sessionId, mtime: Math.floor(score) }));
  }

  async listSessionSummaries(projectKey: string): Promise<StoreSummary[]> {
    const sessions = await this.listSessions(projectKey);
    const metaOf = (sessionId: string) => keysOf(this.#prefix, { projectKey, sessionId }).meta;
    const summaries = await this.#call((c) => Promise.all(sessions.map((s) => c.hget(metaOf(s.sessionId), 'summary'))));
    return summaries.flatMap((json, i) => (json ? [parseSummary(json, `session ${sessions[i]!.sessionId}`)] : []));
  }

  async delete(key: StoreKey): Promise<void> {
    const k = keysOf(this.#prefix, key);
    const whole = key.subpath === undefined;
    const argv = { whole: whole ? '1' : '0', subpath: encodeURIComponent(key.subpath ?? '') };
    await this.#call((c) => callScript(c, STORE_DELETE, k, argv));
    if (whole) await this.#call((c) => c.zrem(k.index, key.sessionId));
  }

  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const k = keysOf(this.#prefix, key);
    const subkeys = await this.#call((c) => c.zrange(k.subkeys, 0, '-1'));
    return subkeys.map((s) => decodeURIComponent(s));
  }

  async close(): Promise<void> {
    const c = this.#connection;
    this.#connection = undefined;
    // A connection that failed to open told whoever awaited it.
    await (await c?.catch(() => undefined))?.close();
  }

  async #call<T>(run: (client: Redis) => Promise<T>): Promise<T> {
    if (!this.#connection) {
      const connecting = openRedis(this.#options.redis, this.#options);
      // A failed connect is not cached: the next call tries again.
      connecting.catch(() => {
        if (this.#connection === connecting) this.#connection = undefined;
      });
      this.#connection = connecting;
    }
    const c = await this.#connection;
    try {
      return await run(c.client);
    } catch (error) {
      throw c.wrap(error);
    }
  }

  /** The summary fold: the option's, else the SDK's own, imported on first use (a clear error without the SDK). */
  #folder(): Promise<FoldSessionSummary> {
    if (this.#options.foldSessionSummary) return Promise.resolve(this.#options.foldSessionSummary);
    this.#fold ??= import(SDK).then(
      (sdk: { foldSessionSummary: FoldSessionSummary }) => sdk.foldSessionSummary,
      (error: unknown) => {
        this.#fold = undefined;
        throw new Error(
          `agentpipe/redis: the main transcript's summary needs ${SDK}, an optional peer dependency of agentpipe ` +
            `that is not installed (npm install ${SDK}), or the foldSessionSummary option ` +
            `(${errorMessage(error)})`,
          { cause: error },
        );
      },
    );
    return this.#fold;
  }
}
