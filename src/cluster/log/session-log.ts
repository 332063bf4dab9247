/**
 * A session's message log on Redis: the durable, fenced, append-only record of everything a
 * session emitted, that any front end can replay from an id and follow live. The concerns live
 * beside it (keys.ts for the layout, lease.ts, durable.ts, live.ts, follow.ts, inbox.ts,
 * warm-pool.ts, archive.ts, lua/ for the scripts); this class is the one object callers hold.
 *
 * Fencing: every write runs ONE Lua script that compares the lease with the caller's token and
 * writes only if they are equal; Redis runs scripts atomically, so an owner whose lease expired
 * (and maybe was taken over) can never write again: it gets a FencedError (fence.ts).
 */
import { Archiver } from './archive.ts';
import { DataEpoch } from './epoch.ts';
import { appendRecord, DurableLog, isEphemeral, type AppendOrder, type AppendRecord } from './durable.ts';
import {
  logEntry,
  type FollowedEntry,
  type InputEntry,
  type LiveEntry,
  type LogEntry,
  type LogMessage,
} from './entries.ts';
import { Follower } from './follow.ts';
import { Inbox } from './inbox.ts';
import { sessionKeys, type SessionKeys } from './keys.ts';
import { Lease } from './lease.ts';
import { LiveStream } from './live.ts';
import { LogStore, type StoreOptions } from './store.ts';
import { WarmMarks } from './warm-pool.ts';

/** Options of a SessionLog. */
export interface SessionLogOptions extends StoreOptions {
  /** Key prefix. Default `ap`. */
  prefix?: string;
  /** Cap of the live stream (approximate: Redis trims whole nodes). Default 1000. */
  liveMaxLen?: number;
  /** The live stream expires this long after its last message. Default 1 hour. */
  liveTtlMs?: number;
  /** Which messages are ephemeral. Default: `stream_event` and `tool_progress` (what transcripts leave out too). */
  ephemeral?: (message: LogMessage) => boolean;
}

/**
 * Session logs on one Redis. Connects on first use (`connect()` to fail early); `close()` closes
 * what it opened. Every method is safe to call concurrently.
 */
export class SessionLog {
  readonly prefix: string;
  readonly #store: LogStore;
  readonly #ephemeral: (message: LogMessage) => boolean;
  readonly #lease: Lease;
  readonly #durable: DurableLog;
  readonly #live: LiveStream;
  readonly #inbox: Inbox;
  readonly #warm: WarmMarks;
  readonly #archiver: Archiver;

  constructor(options: SessionLogOptions) {
    this.prefix = options.prefix ?? 'ap';
    this.#store = new LogStore(options);
    this.#ephemeral = options.ephemeral ?? isEphemeral;
    this.#lease = new Lease(this.#store);
    this.#durable = new DurableLog(this.#store, {
      liveMaxLen: options.liveMaxLen ?? 1000,
      liveTtlMs: options.liveTtlMs ?? 3_600_000,
    });
    this.#live = new LiveStream(this.#store);
    this.#inbox = new Inbox(this.#store);
    this.#warm = new WarmMarks(this.#store);
    this.#archiver = new Archiver(this.#store, this.#durable);
  }

  /** The keys of a session (a hash tag per session: one Redis Cluster slot); a TypeError for an unusable id. */
  keys(sessionId: string): SessionKeys {
    return sessionKeys(this.prefix, sessionId);
  }

  /** Connects now (the first call of any method does otherwise); throws a RedisConnectionError that says why not. */
  async connect(): Promise<void> {
    await this.#store.connect();
  }

  /** Opens a blocking connection now for the next tail; with `keepSpare`, each tail that takes it opens the next. */
  async warm(keepSpare = true): Promise<void> {
    return this.#store.warm(keepSpare);
  }

  /**
   * Watches for Redis losing its data (log/epoch.ts): `onLost` is called once when, after a reconnect, Redis no
   * longer holds the epoch it held when the watch began. Returns the watch: `stop()` ends it, `lost()` asks now.
   */
  async watchDataLoss(onLost: () => void): Promise<{ stop: () => void; lost: () => Promise<boolean> }> {
    const epoch = new DataEpoch(this.#store, this.prefix);
    await epoch.establish();
    let said = false;
    let checking = false;
    const stop = await this.#store.onReconnect(() => {
      if (said || checking) return;
      checking = true;
      epoch
        .lost()
        .then((lost) => {
          if (!lost || said) return;
          said = true;
          stop();
          onLost();
        })
        .catch(() => undefined) // Gone again: the next reconnect checks.
        .finally(() => (checking = false));
    });
    return { stop, lost: () => epoch.lost() };
  }

  /** Closes the connections this log opened (a client passed in is left open); running tails end. */
  async close(): Promise<void> {
    return this.#store.close();
  }

  // The lease (lease.ts).

  /** Takes the session's lease for `leaseMs` if nobody holds it (or the holder's expired); true if `token` holds it. */
  async acquire(sessionId: string, token: string, leaseMs: number): Promise<boolean> {
    return this.#lease.acquire(this.keys(sessionId), token, leaseMs);
  }

  /** Extends the lease `token` holds; throws a FencedError if it no longer holds it. */
  async renew(sessionId: string, token: string, leaseMs: number): Promise<void> {
    return this.#lease.renew(sessionId, this.keys(sessionId), token, leaseMs);
  }

  /** Gives the lease up (if `token` still holds it); true if it did. */
  async release(sessionId: string, token: string): Promise<boolean> {
    return this.#lease.release(this.keys(sessionId), token);
  }

  /** Who holds the lease and for how much longer, or null. */
  async owner(sessionId: string): Promise<{ token: string; ttlMs: number } | null> {
    return this.#lease.owner(this.keys(sessionId));
  }

  // The durable log and the live stream (durable.ts, live.ts, follow.ts).

  /**
   * Appends messages in order, atomically and only while `token` holds the lease (else a FencedError and nothing
   * lands). Durable messages go to the log, ephemeral ones to the capped live stream. A message whose uuid is already
   * in the log is not appended again (a retried append is idempotent). Returns each message's stream id, in order (a
   * live-stream id for an ephemeral one; the earlier id for a repeated uuid).
   */
  async append(sessionId: string, token: string, messages: readonly LogMessage[]): Promise<string[]> {
    return this.appendRecords(sessionId, token, this.encode(messages));
  }

  /** Messages encoded for `appendRecords` (their JSON once: it is what is stored). */
  encode(messages: readonly LogMessage[]): AppendRecord[] {
    return messages.map((m) => appendRecord(m, this.#ephemeral(m)));
  }

  /**
   * `append` of encoded messages; with `leaseMs`, the append also extends the lease (a renewal); with `order`, only as
   * the next batch of its writer (an AppendOrderError otherwise, and nothing lands).
   */
  async appendRecords(
    sessionId: string,
    token: string,
    records: readonly AppendRecord[],
    leaseMs?: number,
    order?: AppendOrder,
  ): Promise<string[]> {
    return this.#durable.append(sessionId, this.keys(sessionId), token, records, leaseMs, order);
  }

  /** Every durable message after `fromId` (exclusive; default: from the start), in order, with stream ids. */
  async read(sessionId: string, fromId?: string): Promise<LogEntry[]> {
    return this.#durable.read(sessionId, this.keys(sessionId), fromId);
  }

  /** The last `count` durable entries, newest first. */
  async lastEntries(sessionId: string, count: number): Promise<LogEntry[]> {
    return this.#durable.lastEntries(sessionId, this.keys(sessionId), count);
  }

  /** The first `count` durable entries, in order (a summary: the first prompt, model, start time). */
  async firstEntries(sessionId: string, count: number): Promise<LogEntry[]> {
    return this.#durable.firstEntries(sessionId, this.keys(sessionId), count);
  }

  /** The id of the last durable message ('0-0' when the log is empty). */
  async lastId(sessionId: string): Promise<string> {
    return this.#store.lastIdOf(this.keys(sessionId).log);
  }

  /** The number of durable messages. */
  async length(sessionId: string): Promise<number> {
    return this.#durable.length(this.keys(sessionId));
  }

  /** The stream id of the durable message with this uuid, if the log has it. */
  async idOfUuid(sessionId: string, uuid: string): Promise<string | undefined> {
    return this.#durable.idOfUuid(this.keys(sessionId), uuid);
  }

  /** Whether the session has a log in Redis. */
  async exists(sessionId: string): Promise<boolean> {
    return this.#durable.exists(this.keys(sessionId));
  }

  /** Ids of the sessions that have a log in Redis, at most `limit` (a SCAN: for a page or a command, not hot paths). */
  async sessionIds(limit = 1000): Promise<string[]> {
    const pattern = `${this.prefix}:{*}:log`;
    const ids: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.#store.call((c) => c.scan(cursor, 'MATCH', pattern, 'COUNT', 500));
      cursor = next;
      for (const key of keys) {
        const match = /:\{([^{}]+)\}:log$/.exec(key);
        if (match) ids.push(match[1]!);
      }
    } while (cursor !== '0' && ids.length < limit);
    return ids.slice(0, limit);
  }

  /** Resolves true once the session has a log (at once if it has), false after `timeoutMs` or when `signal` aborts. */
  async waitForLog(sessionId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (await this.exists(sessionId)) return true;
    return this.#store.waitForEntry(this.keys(sessionId).log, timeoutMs, signal);
  }

  /**
   * Durable messages after `fromId` (`$`: only those appended from now on) as they are appended, through blocking
   * XREADs on a dedicated connection; ends when `signal` aborts. Survives a Redis restart (reads resume from the last
   * id seen); throws a RedisConnectionError after Redis has been unreachable for `tailGiveUpMs`. Each tail holds one
   * connection: a front end with many clients should share one tail per session.
   */
  tail(sessionId: string, fromId: string, signal: AbortSignal): AsyncGenerator<LogEntry> {
    return this.#store.tail(this.keys(sessionId).log, fromId, signal, (raw) => logEntry(raw, sessionId));
  }

  /**
   * Durable messages after `fromId` and, with `live`, the ephemeral ones appended from `live.fromId` on (`$`: from now
   * on), in the order they were appended (follow.ts); ends when `signal` aborts.
   */
  follow(
    sessionId: string,
    fromId: string,
    signal: AbortSignal,
    live?: { fromId: string },
  ): AsyncGenerator<FollowedEntry> {
    return new Follower(this.#store, sessionId, this.keys(sessionId)).follow(fromId, signal, live);
  }

  /** The ephemeral messages still in the (capped) live stream after `fromId` (default: all). */
  async readLive(sessionId: string, fromId?: string): Promise<LiveEntry[]> {
    return this.#live.read(sessionId, this.keys(sessionId), fromId);
  }

  /** The id of the last ephemeral message ('0-0' when none). */
  async lastLiveId(sessionId: string): Promise<string> {
    return this.#live.lastId(this.keys(sessionId));
  }

  /** Like `tail`, for the live stream's ephemeral messages (entries trimmed away by the cap are skipped). */
  tailLive(sessionId: string, fromId: string, signal: AbortSignal): AsyncGenerator<LiveEntry> {
    return this.#live.tail(sessionId, this.keys(sessionId), fromId, signal);
  }

  /** The ephemeral message with this uuid, while the capped live stream still holds it. */
  async liveEntryOfUuid(sessionId: string, uuid: string): Promise<LiveEntry | undefined> {
    return this.#live.entryOfUuid(sessionId, this.keys(sessionId), uuid);
  }

  // The inbox (inbox.ts).

  /** Adds client input lines to the session's inbox (any front end may); returns their ids. */
  async pushInput(sessionId: string, lines: readonly string[]): Promise<string[]> {
    return this.#inbox.push(sessionId, this.keys(sessionId), lines);
  }

  /** The inbox's input lines after `fromId` (exclusive; default: from the start), in order. */
  async readInput(sessionId: string, fromId?: string): Promise<InputEntry[]> {
    return this.#inbox.read(sessionId, this.keys(sessionId), fromId);
  }

  /** Like `tail`, for the inbox's input lines (blocking reads; the owning worker's input). */
  tailInput(sessionId: string, fromId: string, signal: AbortSignal): AsyncGenerator<InputEntry> {
    return this.#inbox.tail(sessionId, this.keys(sessionId), fromId, signal);
  }

  /** The id of the last input line of the inbox ('0-0' when empty). */
  async lastInputId(sessionId: string): Promise<string> {
    return this.#inbox.lastId(this.keys(sessionId));
  }

  /** The number of entries the inbox holds now (the handled ones are trimmed as the owner goes on). */
  async inputLength(sessionId: string): Promise<number> {
    return this.#inbox.length(this.keys(sessionId));
  }

  /** The id of the last inbox entry an owner handled ('0-0': none). */
  async cursor(sessionId: string): Promise<string> {
    return this.#inbox.cursor(sessionId, this.keys(sessionId));
  }

  /** True when the inbox holds input no owner handled yet (after the cursor). */
  async hasPendingInput(sessionId: string): Promise<boolean> {
    return this.#inbox.hasPending(sessionId, this.keys(sessionId));
  }

  /**
   * Records that the owner handled the inbox up to `inputId`; fenced like `append`. With `keepFrom`, the inbox entries
   * before that id are trimmed; with `state`, the input line of a state-setting request is kept under its field.
   */
  async setCursor(
    sessionId: string,
    token: string,
    inputId: string,
    more: { keepFrom?: string; state?: { field: string; line: string } } = {},
  ): Promise<void> {
    return this.#inbox.setCursor(sessionId, this.keys(sessionId), token, inputId, more);
  }

  /** The state-setting control requests the owners handled, the last of each kind (input lines). */
  async stateRequests(sessionId: string): Promise<Map<string, string>> {
    return this.#inbox.stateRequests(this.keys(sessionId));
  }

  /**
   * Drops state requests a new owner would handle again (`fields`, as `stateRequests` names them); fenced like
   * `append`. A run that ends drops its client's `initialize` (its hooks and callbacks are that client's).
   */
  async forgetState(sessionId: string, token: string, fields: readonly string[]): Promise<void> {
    return this.#inbox.forgetState(sessionId, this.keys(sessionId), token, fields);
  }

  // Warm sessions (warm-pool.ts).

  /** Says that a warm session is open and reading its inbox (a claim or a discard deletes it; it expires after ttl). */
  async markReady(sessionId: string, ttlMs: number): Promise<void> {
    return this.#warm.markReady(this.keys(sessionId), ttlMs);
  }

  /** Marks a warm session as waiting in a front end's pool, before its job is queued: no connection may name it. */
  async markPooled(sessionId: string, ttlMs: number): Promise<void> {
    return this.#warm.markPooled(this.keys(sessionId), ttlMs);
  }

  /** Removes the pooled mark (a claim that failed for good). */
  async unmarkPooled(sessionId: string): Promise<void> {
    return this.#warm.unmarkPooled(this.keys(sessionId));
  }

  /** True while the session waits in a warm pool (markPooled): it belongs to no client yet. */
  async isPooled(sessionId: string): Promise<boolean> {
    return this.#warm.isPooled(this.keys(sessionId));
  }

  /** Resolves true once a worker said the warm session is ready (markReady), false after `timeoutMs` or an abort. */
  async waitReady(sessionId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.#warm.waitReady(this.keys(sessionId), timeoutMs, signal);
  }

  /**
   * Takes a ready warm session for a client: deletes its marks and adds `line` (unique per claim) to its empty inbox;
   * false when it is not ready (discarded): nothing was added then. A retried claim whose answer was lost says true.
   */
  async claimWarm(sessionId: string, line: string): Promise<boolean> {
    return this.#warm.claim(this.keys(sessionId), line);
  }

  /** Deletes the keys of a warm session no client took; refused (false) when anything of it changed or was claimed. */
  async discard(sessionId: string, token: string): Promise<boolean> {
    return this.#warm.discard(this.keys(sessionId), token);
  }

  // Archives (archive.ts).

  /**
   * Writes the durable messages to `file` as a JSONL transcript (the lines `Transcript` would have written) and then
   * deletes the session's keys, which also fences its owner. With `token` (the caller's lease) it is refused (an
   * ArchiveRefusedError, nothing deleted) while another owner holds the lease or input waits unhandled. Returns the
   * number of lines written.
   */
  async archive(sessionId: string, file: string, token?: string): Promise<number> {
    return this.#archiver.archive(sessionId, this.keys(sessionId), file, token);
  }

  /** Deletes every key of the session (an owner still running is fenced). */
  async delete(sessionId: string): Promise<void> {
    return this.#archiver.delete(this.keys(sessionId));
  }
}
