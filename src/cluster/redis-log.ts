/**
 * A session's message log on Redis: the durable, fenced, append-only record of everything a
 * session emitted, that any front end can replay from an id and tail live.
 *
 * Keys (one hash tag per session, so Redis Cluster keeps a session on one shard):
 * - `<prefix>:{<sessionId>}:log`   Stream: the durable messages, field `m` = the message JSON,
 *                                  `o` = the owner token that appended it; stream ids order them.
 * - `<prefix>:{<sessionId>}:owner` String: the lease, the owner token with an expiry (PX).
 * - `<prefix>:{<sessionId>}:live`  Stream capped with MAXLEN ~ N and expiring when idle: the
 *                                  ephemeral messages (`stream_event` deltas, `tool_progress`), each
 *                                  with `a` = the id of the durable message it follows. Never in the log.
 * - `<prefix>:{<sessionId>}:uuids` Hash: message uuid -> stream id, so a retried append (a reply lost
 *                                  to a dropped connection, then resent) lands once.
 * - `<prefix>:{<sessionId>}:inbox` Stream: the client's input lines (field `l`), added by any front
 *                                  end, read by the owning worker in order.
 * - `<prefix>:{<sessionId>}:cursor` String: the id of the last inbox entry the owner handled (set
 *                                  fenced, like appends), so a new owner goes on after it. Inbox
 *                                  entries before the oldest one still needed are trimmed then.
 * - `<prefix>:{<sessionId>}:state` Hash: the last state-setting control request of each kind the
 *                                  owner handled (`initialize`, `set_model`...), which a new owner
 *                                  handles again (the inbox no longer holds them once trimmed).
 * - `<prefix>:{<sessionId>}:ready` Stream, expiring: a warm session's worker adds one entry once the
 *                                  session is open, for the front end that queued it.
 * - `<prefix>:{<sessionId>}:pooled` String, expiring: set while a warm session waits in a front
 *                                  end's pool (before its job is queued, until a claim or its
 *                                  discard): no connection may name it then.
 *
 * Fencing: every append runs ONE Lua script that compares the owner key with the caller's token
 * and appends only if they are equal; Redis runs scripts atomically, so an owner whose lease
 * expired (and maybe was taken over) can never append again: it gets a FencedError. Owner
 * tokens must be unique per acquisition (a random uuid), never reused.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { PRIVATE_FILE, PRIVATE_FOLDER } from '../process/private-files.ts';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { AgentMessage } from '../messages/types.ts';
import type { OutputLine } from '../messages/wire.ts';
import { keepsInTranscript } from '../session/transcript.ts';
import type { PromptLine, SnapshotLine, TitleLine } from '../session/transcript-format.ts';
import { openBlocking, openRedis, pause, reconnectDelay, RedisConnectionError } from './connection.ts';
import type { Connection, RedisConnectionOptions, RedisTarget } from './connection.ts';

/**
 * The marker a worker appends when a session's run ends (front ends and `attach` stop there; never sent to clients).
 */
export interface SessionEndMarker {
  type: 'agentpipe_session_end';
  session_id: string;
  uuid: string;
  reason: string;
  timestamp: string;
}

/**
 * What a session log holds: the wire lines (messages, control round trips), the transcript-only lines (prompts,
 * snapshots, titles), end markers.
 */
export type LogMessage = OutputLine | PromptLine | SnapshotLine | TitleLine | SessionEndMarker;

/** The Redis keys of one session. */
export interface SessionKeys {
  log: string;
  owner: string;
  live: string;
  uuids: string;
  inbox: string;
  cursor: string;
  state: string;
  ready: string;
  pooled: string;
}

/** An input line of the session's inbox with its stream id. */
export interface InputEntry {
  id: string;
  line: string;
}

/** An entry of `follow`: a durable message of the log or an ephemeral one of the live stream. */
export type FollowedEntry = { kind: 'durable'; entry: LogEntry } | { kind: 'live'; entry: LiveEntry };

/** A message read back with its stream id. */
export interface LogEntry {
  id: string;
  message: LogMessage;
  /**
   * A durable message's: the id of the last ephemeral message appended before it ('0-0': none), so a follower
   * knows whether deltas it has not given precede it. Absent on entries appended before it was recorded.
   */
  lastLive?: string;
}

/**
 * An ephemeral message read back from the live stream: `after` is the id of the durable message it follows ('0-0':
 * none yet).
 */
export interface LiveEntry extends LogEntry {
  after: string;
}

/** The caller no longer owns the session's lease: its append (or renewal) was refused and nothing of it landed. */
export class FencedError extends Error {
  override name = 'FencedError';
  readonly sessionId: string;
  /** `expired`: nobody holds the lease now; `taken`: another owner holds it. */
  readonly reason: 'expired' | 'taken';
  constructor(sessionId: string, reason: 'expired' | 'taken') {
    const why = reason === 'expired' ? 'its lease expired' : 'another worker took it over';
    super(`session ${sessionId}: this worker no longer owns it (${why}); nothing was appended`);
    this.sessionId = sessionId;
    this.reason = reason;
  }
}

/** Options of a SessionLog. */
export interface SessionLogOptions extends RedisConnectionOptions {
  /** A `redis://` URL (the log opens and closes its connections) or a client you own. */
  redis: RedisTarget;
  /** Key prefix. Default `ap`. */
  prefix?: string;
  /** Cap of the live stream (approximate: Redis trims whole nodes). Default 1000. */
  liveMaxLen?: number;
  /** The live stream expires this long after its last message. Default 1 hour. */
  liveTtlMs?: number;
  /** Which messages are ephemeral. Default: `stream_event` and `tool_progress` (what transcripts leave out too). */
  ephemeral?: (message: LogMessage) => boolean;
  /** How long one blocking XREAD of `tail` waits before asking again. Default 5000 ms. */
  blockMs?: number;
  /** `tail` throws after Redis has been unreachable this long. Default 30000 ms. */
  tailGiveUpMs?: number;
}

/**
 * An archive that would lose something: the session runs on a worker, or input waits in its inbox. Nothing was
 * deleted.
 */
export class ArchiveRefusedError extends Error {
  override name = 'ArchiveRefusedError';
  readonly sessionId: string;
  constructor(sessionId: string, why: string) {
    super(`session ${sessionId}: not archived: ${why}`);
    this.sessionId = sessionId;
  }
}

/** The default split: deltas and heartbeats are ephemeral, as in transcripts. */
export const isEphemeral = (message: LogMessage): boolean =>
  message.type === 'stream_event' || message.type === 'tool_progress';

const ACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

// The start of every script that writes only for the lease's holder (KEYS[1] the owner key, ARGV[1] the token):
// an error naming why otherwise (the lease expired, or another worker holds it).
const FENCE = `
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then
  if not cur then return redis.error_reply('FENCED expired') end
  return redis.error_reply('FENCED taken')
end`;

// KEYS: owner, log, live, uuids. ARGV: token, live cap, live ttl, then (kind, uuid, json) triplets.
const APPEND = `${FENCE}
local ids = {}
local last = nil
local live = false
local lastLive = nil
for i = 4, #ARGV, 3 do
  local kind, uuid, json = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if kind == 'd' then
    local known = false
    if uuid ~= '' then known = redis.call('HGET', KEYS[4], uuid) end
    if known then
      ids[#ids + 1] = known
    else
      if not lastLive then
        local top = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
        if top[1] then lastLive = top[1][1] else lastLive = '0-0' end
      end
      last = redis.call('XADD', KEYS[2], '*', 'm', json, 'o', ARGV[1], 'l', lastLive)
      if uuid ~= '' then redis.call('HSET', KEYS[4], uuid, last) end
      ids[#ids + 1] = last
    end
  else
    if not last then
      local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
      if top[1] then last = top[1][1] else last = '0-0' end
    end
    lastLive = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', 'm', json, 'a', last)
    ids[#ids + 1] = lastLive
    live = true
  end
end
if live then redis.call('PEXPIRE', KEYS[3], ARGV[3]) end
return ids`;

// KEYS: log, owner, live, uuids, inbox, cursor, state, ready, pooled. ARGV: the last id the caller archived
// ('0-0': the log must be empty), the caller's owner token ('*': no checks but the first). Deletes
// every key only if nothing was appended since (else 0), the lease is free or the caller's (else
// -1) and every inbox entry was handled (else -2: an inbox with entries and no cursor refuses).
const DELETE_IF_UNCHANGED = `
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local id = '0-0'
if top[1] then id = top[1][1] end
if id ~= ARGV[1] then return 0 end
if ARGV[2] == '*' then
  redis.call('DEL', unpack(KEYS))
  return 1
end
local cur = redis.call('GET', KEYS[2])
if cur and cur ~= ARGV[2] then return -1 end
local input = redis.call('XREVRANGE', KEYS[5], '+', '-', 'COUNT', 1)
if input[1] then
  local cursor = redis.call('GET', KEYS[6])
  if not cursor then return -2 end
  local a, b = string.match(input[1][1], '(%d+)-(%d+)')
  local c, d = string.match(cursor, '(%d+)-(%d+)')
  if tonumber(a) > tonumber(c) or (tonumber(a) == tonumber(c) and tonumber(b) > tonumber(d)) then return -2 end
end
redis.call('DEL', unpack(KEYS))
return 1`;

// KEYS: ready, inbox, pooled. ARGV: the line. Takes a warm session: deletes its ready mark and its pooled
// mark, and adds the line to its inbox, only while the ready mark is there (its worker's discard deletes
// the mark in the script that checks the inbox, so a claim either lands before the discard, which then
// refuses, or finds no mark). An inbox with entries is claimed already (the client's input came first):
// nothing is added after it.
const CLAIM_WARM = `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[3])
if redis.call('XLEN', KEYS[2]) == 0 then redis.call('XADD', KEYS[2], '*', 'l', ARGV[1]) end
return 1`;

// KEYS: owner, cursor, inbox, state. ARGV: token, inbox id, the oldest inbox id still needed ('':
// no trim), then a state field and its line ('' '': none). Only while the token holds the lease.
const SET_CURSOR = `${FENCE}
redis.call('SET', KEYS[2], ARGV[2])
if ARGV[3] ~= '' then redis.call('XTRIM', KEYS[3], 'MINID', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[4], ARGV[5]) end
return 1`;

// KEYS: owner, state. ARGV: token, then the fields to drop. Only while the token holds the lease.
const FORGET_STATE = `${FENCE}
for i = 2, #ARGV do redis.call('HDEL', KEYS[2], ARGV[i]) end
return 1`;

const SCRIPTS = {
  agentpipeLogAcquire: { numberOfKeys: 1, lua: ACQUIRE },
  agentpipeLogRenew: { numberOfKeys: 1, lua: RENEW },
  agentpipeLogRelease: { numberOfKeys: 1, lua: RELEASE },
  agentpipeLogAppend: { numberOfKeys: 4, lua: APPEND },
  agentpipeLogDeleteIfUnchanged: { numberOfKeys: 9, lua: DELETE_IF_UNCHANGED },
  agentpipeLogClaimWarm: { numberOfKeys: 3, lua: CLAIM_WARM },
  agentpipeLogSetCursor: { numberOfKeys: 4, lua: SET_CURSOR },
  agentpipeLogForgetState: { numberOfKeys: 2, lua: FORGET_STATE },
} as const;

type ScriptCommands = { [K in keyof typeof SCRIPTS]: (...args: Array<string | number>) => Promise<unknown> };

const STREAM_ID = /^\d+-\d+$/;
const PAGE = 1000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses one stored message: a JSON object with a string `type` (and a string `uuid` if any); throws on anything else.
 */
function parseMessage(json: unknown, where: string): LogMessage {
  if (typeof json !== 'string') throw new Error(`${where}: the entry has no message field`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`${where}: the message is not JSON (${(error as Error).message})`);
  }
  if (!isObject(value) || typeof value.type !== 'string')
    throw new Error(`${where}: the message is not an object with a string "type"`);
  if (value.uuid !== undefined && typeof value.uuid !== 'string')
    throw new Error(`${where}: the message's "uuid" is not a string`);
  return value as unknown as LogMessage;
}

/** The fields of a stream entry as a map; throws when the reply is not a stream entry. */
function entryFields(raw: unknown, where: string): { id: string; fields: Map<string, string> } {
  if (!Array.isArray(raw) || raw.length !== 2 || typeof raw[0] !== 'string' || !Array.isArray(raw[1])) {
    throw new Error(`${where}: unexpected stream entry from Redis`);
  }
  const [id, flat] = raw as [string, unknown[]];
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [name, value] = [flat[i], flat[i + 1]];
    if (typeof name === 'string' && typeof value === 'string') fields.set(name, value);
  }
  return { id, fields };
}

/**
 * The entries of an XREAD reply for one stream: `[[key, entries]]` (RESP2) or `[key, entries]` (RESP3 map, flattened).
 */
function xreadEntries(reply: unknown, sessionId: string): unknown[] {
  const bad = (): Error => new Error(`session ${sessionId}: unexpected XREAD reply from Redis`);
  if (!Array.isArray(reply)) throw bad();
  const items = reply as unknown[];
  const stream = typeof items[0] === 'string' ? items : items[0];
  if (!Array.isArray(stream) || !Array.isArray(stream[1])) throw bad();
  return stream[1] as unknown[];
}

/**
 * The `[key, entries]` pairs of an XREAD reply (RESP2 nested arrays, or a RESP3 map flattened to key, entries, key,
 * entries).
 */
function xreadStreams(reply: unknown, sessionId: string): Array<[string, unknown[]]> {
  if (!Array.isArray(reply)) throw new Error(`session ${sessionId}: unexpected XREAD reply from Redis`);
  const items = reply as unknown[];
  const pairs: Array<[string, unknown[]]> = [];
  if (typeof items[0] === 'string') {
    for (let i = 0; i + 1 < items.length; i += 2) {
      const [key, entries] = [items[i], items[i + 1]];
      if (typeof key === 'string' && Array.isArray(entries)) pairs.push([key, entries as unknown[]]);
    }
  } else {
    for (const item of items)
      if (Array.isArray(item) && typeof item[0] === 'string' && Array.isArray(item[1]))
        pairs.push([item[0], item[1] as unknown[]]);
  }
  return pairs;
}

/** The first key of XREAD arguments, for messages. */
const key0 = (args: readonly string[]): string => args[0] ?? '?';

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}

/** Checks a stream id given by a caller (`0-0` is the start). */
function checkId(id: string): string {
  if (!STREAM_ID.test(id)) throw new TypeError(`not a stream id: ${JSON.stringify(id)} (expected "<ms>-<seq>")`);
  return id;
}

/** Checks an owner token and a lease length given by a caller. */
function checkLease(ownerToken: string, leaseMs: number): void {
  if (typeof ownerToken !== 'string' || ownerToken === '')
    throw new TypeError('the owner token must be a non-empty string');
  if (!Number.isFinite(leaseMs) || leaseMs < 1)
    throw new TypeError(`the lease must be a positive number of ms, not ${leaseMs}`);
}

/** Types a log holds that are no transcript line: the control round trips, the worker's own markers. */
const NOT_TRANSCRIPT = new Set([
  'control_request',
  'control_response',
  'control_cancel_request',
  'transcript_mirror',
  'keep_alive',
  'agentpipe_session_end',
]);

/**
 * A line of an archived transcript, as Transcript.record writes it (a timestamp on every line); undefined for what
 * transcripts leave out.
 */
export function transcriptLine(message: LogMessage): object | undefined {
  if (NOT_TRANSCRIPT.has(message.type)) return undefined;
  // The one rule of what a transcript keeps (no deltas, heartbeats, prompt echoes or auth_status).
  if (!keepsInTranscript(message as AgentMessage)) return undefined;
  return 'timestamp' in message && message.timestamp ? message : { ...message, timestamp: new Date().toISOString() };
}

/**
 * Session logs on one Redis. Connects on first use (`connect()` to fail early); `close()` closes
 * what it opened. Every method is safe to call concurrently.
 */
export class SessionLog {
  readonly prefix: string;
  readonly #options: SessionLogOptions;
  readonly #ephemeral: (message: LogMessage) => boolean;
  #connection?: Promise<Connection>;
  readonly #tails = new Set<Connection>();
  /** A blocking connection opened ahead of the next tail (a tail starts without a connect on its way). */
  #spare?: Promise<Connection>;

  constructor(options: SessionLogOptions) {
    this.#options = options;
    this.prefix = options.prefix ?? 'ap';
    this.#ephemeral = options.ephemeral ?? isEphemeral;
  }

  /** The keys of a session (a hash tag per session: one Redis Cluster slot). */
  keys(sessionId: string): SessionKeys {
    if (!sessionId || /[{}\s]/.test(sessionId) || sessionId.length > 256)
      throw new TypeError(`not a usable session id: ${JSON.stringify(sessionId)}`);
    const base = `${this.prefix}:{${sessionId}}`;
    return {
      log: `${base}:log`,
      owner: `${base}:owner`,
      live: `${base}:live`,
      uuids: `${base}:uuids`,
      inbox: `${base}:inbox`,
      cursor: `${base}:cursor`,
      state: `${base}:state`,
      ready: `${base}:ready`,
      pooled: `${base}:pooled`,
    };
  }

  /** Connects now (the first call of any method does otherwise); throws a RedisConnectionError that says why not. */
  async connect(): Promise<void> {
    await this.#conn();
  }

  /**
   * Takes the session's lease for `leaseMs` if nobody holds it (or the holder's expired); true if `ownerToken` holds
   * it now.
   */
  async acquire(sessionId: string, ownerToken: string, leaseMs: number): Promise<boolean> {
    const { owner } = this.keys(sessionId);
    checkLease(ownerToken, leaseMs);
    return (await this.#script('agentpipeLogAcquire', owner, ownerToken, Math.ceil(leaseMs))) === 1;
  }

  /** Extends the lease `ownerToken` holds; throws a FencedError if it no longer holds it. */
  async renew(sessionId: string, ownerToken: string, leaseMs: number): Promise<void> {
    const { owner } = this.keys(sessionId);
    checkLease(ownerToken, leaseMs);
    const answer = await this.#script('agentpipeLogRenew', owner, ownerToken, Math.ceil(leaseMs));
    if (answer !== 1) throw new FencedError(sessionId, answer === -1 ? 'taken' : 'expired');
  }

  /** Gives the lease up (if `ownerToken` still holds it); true if it did. */
  async release(sessionId: string, ownerToken: string): Promise<boolean> {
    const { owner } = this.keys(sessionId);
    return (await this.#script('agentpipeLogRelease', owner, ownerToken)) === 1;
  }

  /** Who holds the lease and for how much longer, or null. */
  async owner(sessionId: string): Promise<{ token: string; ttlMs: number } | null> {
    const { owner } = this.keys(sessionId);
    const [token, ttl] = await this.#call((c) => Promise.all([c.get(owner), c.pttl(owner)]));
    return typeof token === 'string' ? { token, ttlMs: Math.max(0, ttl) } : null;
  }

  /**
   * Appends messages in order, atomically and only while `ownerToken` holds the lease (else a
   * FencedError and nothing lands). Durable messages go to the log, ephemeral ones to the capped
   * live stream. A message whose uuid is already in the log is not appended again (a retried
   * append is idempotent). Returns each message's stream id, in order (a live-stream id for an
   * ephemeral one; the earlier id for a repeated uuid).
   */
  async append(sessionId: string, ownerToken: string, messages: readonly LogMessage[]): Promise<string[]> {
    const keys = this.keys(sessionId);
    if (messages.length === 0) return [];
    const args: string[] = [
      ownerToken,
      String(this.#options.liveMaxLen ?? 1000),
      String(this.#options.liveTtlMs ?? 3_600_000),
    ];
    for (const message of messages) {
      // A replay echoes the uuid of the user message (and so of its prompt line): not indexed, or the prompt line
      // would not land.
      const replay = message.type === 'user' && 'isReplay' in message && message.isReplay === true;
      const uuid = !replay && 'uuid' in message && typeof message.uuid === 'string' ? message.uuid : '';
      args.push(this.#ephemeral(message) ? 'e' : 'd', uuid, JSON.stringify(message));
    }
    let answer: unknown;
    try {
      answer = await this.#script('agentpipeLogAppend', keys.owner, keys.log, keys.live, keys.uuids, ...args);
    } catch (error) {
      const fenced = /^FENCED (expired|taken)/.exec((error as Error).message ?? '');
      if (fenced) throw new FencedError(sessionId, fenced[1] as 'expired' | 'taken');
      throw error;
    }
    if (!Array.isArray(answer) || answer.length !== messages.length || !answer.every((id) => typeof id === 'string')) {
      throw new Error(`session ${sessionId}: unexpected answer from the append script: ${JSON.stringify(answer)}`);
    }
    return answer as string[];
  }

  /** Every durable message after `fromId` (exclusive; default: from the start), in order, with stream ids. */
  async read(sessionId: string, fromId?: string): Promise<LogEntry[]> {
    const { log } = this.keys(sessionId);
    const entries: LogEntry[] = [];
    let start = fromId === undefined ? '-' : `(${checkId(fromId)}`;
    for (;;) {
      const page = await this.#call((c) => c.xrange(log, start, '+', 'COUNT', PAGE));
      for (const raw of page as unknown[]) entries.push(this.#entry(raw, sessionId));
      if (page.length < PAGE) return entries;
      start = `(${entries.at(-1)!.id}`;
    }
  }

  /** The id of the last durable message ('0-0' when the log is empty). */
  async lastId(sessionId: string): Promise<string> {
    return this.#lastIdOf(this.keys(sessionId).log);
  }

  /** The ephemeral messages still in the (capped) live stream after `fromId` (default: all). */
  async readLive(sessionId: string, fromId?: string): Promise<LiveEntry[]> {
    const { live } = this.keys(sessionId);
    const start = fromId === undefined ? '-' : `(${checkId(fromId)}`;
    const page = await this.#call((c) => c.xrange(live, start, '+'));
    return (page as unknown[]).map((raw) => this.#liveEntry(raw, sessionId));
  }

  /**
   * Durable messages after `fromId` (`$`: only those appended from now on) as they are appended,
   * through blocking XREADs on a dedicated connection; ends when `signal` aborts (or the loop
   * breaks). Survives a Redis restart (reads resume from the last id seen: nothing twice, nothing
   * lost); throws a RedisConnectionError after Redis has been unreachable for `tailGiveUpMs`.
   * Each tail holds one connection: a front end with many clients should share one tail per session.
   */
  tail(sessionId: string, fromId: string, signal: AbortSignal): AsyncGenerator<LogEntry> {
    return this.#tail(sessionId, this.keys(sessionId).log, fromId, signal, (raw) => this.#entry(raw, sessionId));
  }

  /**
   * Durable messages after `fromId` and, with `live`, the ephemeral ones appended from `live.fromId`
   * on (`$`: from now on), in the order they were appended: a delta after the durable message it
   * follows and before the next one. Through blocking XREADs of both streams at once; ends when
   * `signal` aborts; retries a lost connection for `tailGiveUpMs`, like `tail`.
   *
   * One XREAD reply does not settle the order: Redis may answer a read blocked on two streams with
   * the one that got data first (one append script can add a message, deltas, then a message: the
   * reply holds both messages and no delta), and COUNT caps each stream on its own. So before a
   * durable message the deltas that precede it and were not given yet are read (XRANGE of the live
   * stream), and before a delta the durable messages up to the one it follows (XRANGE of the log);
   * the read's own copies of what was given that way are skipped.
   */
  async *follow(
    sessionId: string,
    fromId: string,
    signal: AbortSignal,
    live?: { fromId: string },
  ): AsyncGenerator<FollowedEntry> {
    const keys = this.keys(sessionId);
    if (signal.aborted) return;
    // The last durable message and the last delta given (the reads go on from there).
    const at = {
      durable: checkId(fromId),
      live: live ? (live.fromId === '$' ? await this.#lastIdOf(keys.live) : checkId(live.fromId)) : undefined,
    };
    const streams = () => (at.live === undefined ? [keys.log, at.durable] : [keys.log, keys.live, at.durable, at.live]);
    for await (const reply of this.#blockingReads(streams, signal)) {
      const durable: LogEntry[] = [];
      const deltas: LiveEntry[] = [];
      for (const [key, entries] of xreadStreams(reply, sessionId)) {
        if (key === keys.log) for (const raw of entries) durable.push(this.#entry(raw, sessionId));
        else for (const raw of entries) deltas.push(this.#liveEntry(raw, sessionId));
      }
      // The reply merged (a delta before every durable message after the one it follows), then each checked.
      let d = 0;
      for (const delta of deltas) {
        while (d < durable.length && compareStreamIds(durable[d]!.id, delta.after) <= 0) {
          for (const item of await this.#withDeltas(sessionId, durable[d++]!, at)) {
            yield item;
            if (signal.aborted) return;
          }
        }
        if (compareStreamIds(delta.id, at.live!) <= 0) continue;
        if (compareStreamIds(delta.after, at.durable) > 0) {
          for (const entry of await this.#range(keys.log, at.durable, delta.after, (raw) =>
            this.#entry(raw, sessionId),
          ))
            for (const item of await this.#withDeltas(sessionId, entry, at)) {
              yield item;
              if (signal.aborted) return;
            }
        }
        if (compareStreamIds(delta.id, at.live!) <= 0) continue;
        at.live = delta.id;
        yield { kind: 'live', entry: delta };
        if (signal.aborted) return;
      }
      for (; d < durable.length; d++) {
        for (const item of await this.#withDeltas(sessionId, durable[d]!, at)) {
          yield item;
          if (signal.aborted) return;
        }
      }
    }
  }

  /**
   * A durable entry of `follow` (none if given already), after the deltas that precede it and were
   * not given yet (when deltas are followed). Moves `at` on.
   */
  async #withDeltas(
    sessionId: string,
    entry: LogEntry,
    at: { durable: string; live: string | undefined },
  ): Promise<FollowedEntry[]> {
    if (compareStreamIds(entry.id, at.durable) <= 0) return [];
    const items: FollowedEntry[] = [];
    // The deltas appended before `entry` that were not given yet: none when the append recorded that the last one
    // before it was given already (no read); else read (a delta's `after` never decreases: those before it come first).
    const upTo = entry.lastLive ?? '+';
    if (at.live !== undefined && (upTo === '+' || compareStreamIds(upTo, at.live) > 0)) {
      const { live } = this.keys(sessionId);
      const before = entry.id;
      for (const delta of await this.#range(
        live,
        at.live,
        upTo,
        (raw) => this.#liveEntry(raw, sessionId),
        (e) => compareStreamIds(e.after, before) < 0,
        64,
      )) {
        at.live = delta.id;
        items.push({ kind: 'live', entry: delta });
      }
    }
    at.durable = entry.id;
    items.push({ kind: 'durable', entry });
    return items;
  }

  /**
   * The entries of `key` after `fromId` (exclusive) up to `toId` (inclusive; '+': the end), a page at a time, while
   * `keep` holds.
   */
  async #range<E extends { id: string }>(
    key: string,
    fromId: string,
    toId: string,
    parse: (raw: unknown) => E,
    keep: (entry: E) => boolean = () => true,
    count = PAGE,
  ): Promise<E[]> {
    const found: E[] = [];
    for (let start = `(${fromId}`; ;) {
      const page = (await this.#call((c) => c.xrange(key, start, toId, 'COUNT', count))) as unknown[];
      for (const raw of page) {
        const entry = parse(raw);
        if (!keep(entry)) return found;
        found.push(entry);
      }
      if (page.length < count) return found;
      start = `(${found.at(-1)!.id}`;
    }
  }

  /** The stream id of the durable message with this uuid, if the log has it. */
  async idOfUuid(sessionId: string, uuid: string): Promise<string | undefined> {
    const { uuids } = this.keys(sessionId);
    const id = await this.#call((c) => c.hget(uuids, uuid));
    return typeof id === 'string' && STREAM_ID.test(id) ? id : undefined;
  }

  /** Whether the session has a log in Redis. */
  async exists(sessionId: string): Promise<boolean> {
    const { log } = this.keys(sessionId);
    return (await this.#call((c) => c.exists(log))) === 1;
  }

  /** The id of the last ephemeral message ('0-0' when none). */
  async lastLiveId(sessionId: string): Promise<string> {
    return this.#lastIdOf(this.keys(sessionId).live);
  }

  /** Like `tail`, for the live stream's ephemeral messages (entries trimmed away by the cap are skipped). */
  tailLive(sessionId: string, fromId: string, signal: AbortSignal): AsyncGenerator<LiveEntry> {
    return this.#tail(sessionId, this.keys(sessionId).live, fromId, signal, (raw) => this.#liveEntry(raw, sessionId));
  }

  /**
   * Writes the durable messages to `file` as a JSONL transcript (one message per line, the lines
   * `Transcript` would have written: no deltas, no replays, a timestamp on each) and then deletes
   * the session's keys, which also fences its owner. Written to a temp file and renamed before the
   * delete (a worker that finds no log then finds the file); if messages were appended meanwhile
   * it starts over, so nothing appended before the delete is lost. With `ownerToken` (the caller's
   * lease, '' for none) it is refused (an ArchiveRefusedError, nothing deleted) while another owner
   * holds the lease or an input line waits unhandled in the inbox; without it, the owner is fenced.
   * Returns the number of lines written.
   */
  async archive(sessionId: string, file: string, ownerToken?: string): Promise<number> {
    const keys = this.keys(sessionId);
    // An archive is a transcript: its owner's only (0600 in folders made 0700).
    await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_FOLDER });
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      for (let attempt = 0; attempt < 10; attempt++) {
        const entries = await this.read(sessionId);
        const lines = entries.map((e) => transcriptLine(e.message)).filter((l) => l !== undefined);
        await writeFile(temp, lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { flush: true, mode: PRIVATE_FILE });
        const last = entries.at(-1)?.id ?? '0-0';
        if (lines.length) await rename(temp, file);
        const deleted = await this.#deleteIfUnchanged(keys, last, ownerToken ?? '*');
        if (deleted === 1) return lines.length;
        if (deleted === -1) throw new ArchiveRefusedError(sessionId, 'a worker is running it');
        if (deleted === -2) throw new ArchiveRefusedError(sessionId, 'input is waiting in its inbox');
      }
      throw new Error(`session ${sessionId}: cannot archive: messages kept being appended (release the session first)`);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * Deletes the session's log, lease, live stream, uuid index, inbox, cursor and state (an owner still running is
   * fenced).
   */
  async delete(sessionId: string): Promise<void> {
    const { log, owner, live, uuids, inbox, cursor, state, ready, pooled } = this.keys(sessionId);
    await this.#call((c) => c.del(log, owner, live, uuids, inbox, cursor, state, ready, pooled));
  }

  /** Resolves true once the session has a log (at once if it has), false after `timeoutMs` or when `signal` aborts. */
  async waitForLog(sessionId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const { log } = this.keys(sessionId);
    if (await this.exists(sessionId)) return true;
    return this.#waitForEntry(log, timeoutMs, signal);
  }

  /**
   * Says that a warm session is open and reading its inbox: an entry a claim (claimWarm) or a discard deletes, and
   * that expires after `ttlMs` (a safety net).
   */
  async markReady(sessionId: string, ttlMs: number): Promise<void> {
    const { ready } = this.keys(sessionId);
    await this.#call((c) => c.multi().xadd(ready, '*', 'r', '1').pexpire(ready, Math.ceil(ttlMs)).exec());
  }

  /**
   * Marks a warm session as waiting in a front end's pool, before its job is queued (claimWarm or its discard deletes
   * the mark; it expires after `ttlMs`, a safety net): while it is there, no connection may name the session.
   */
  async markPooled(sessionId: string, ttlMs: number): Promise<void> {
    await this.#call((c) => c.set(this.keys(sessionId).pooled, '1', 'PX', Math.ceil(ttlMs)));
  }

  /** True while the session waits in a warm pool (markPooled): it belongs to no client yet. */
  async isPooled(sessionId: string): Promise<boolean> {
    return (await this.#call((c) => c.exists(this.keys(sessionId).pooled))) === 1;
  }

  /** Resolves true once a worker said the warm session is ready (markReady), false after `timeoutMs` or an abort. */
  async waitReady(sessionId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.#waitForEntry(this.keys(sessionId).ready, timeoutMs, signal);
  }

  /**
   * Takes a ready warm session for a client: deletes its ready mark and adds `line` to its empty inbox (its first
   * input line claims it; client input that came first claims it already); false when it is not ready (discarded):
   * nothing was added then.
   */
  async claimWarm(sessionId: string, line: string): Promise<boolean> {
    const { ready, inbox, pooled } = this.keys(sessionId);
    return (await this.#script('agentpipeLogClaimWarm', ready, inbox, pooled, line)) === 1;
  }

  /**
   * Deletes the keys of a warm session no client took: refused (false, nothing deleted) when its log is not empty,
   * another owner holds its lease, or its inbox has an entry no owner handled (a client claimed it).
   */
  async discard(sessionId: string, ownerToken: string): Promise<boolean> {
    const keys = this.keys(sessionId);
    return (await this.#deleteIfUnchanged(keys, '0-0', ownerToken)) === 1;
  }

  /** Every key of the session, deleted by DELETE_IF_UNCHANGED (see there for `last`, `ownerToken` and the answers). */
  #deleteIfUnchanged(keys: SessionKeys, last: string, ownerToken: string): Promise<unknown> {
    const { log, owner, live, uuids, inbox, cursor, state, ready, pooled } = keys;
    return this.#script(
      'agentpipeLogDeleteIfUnchanged',
      log,
      owner,
      live,
      uuids,
      inbox,
      cursor,
      state,
      ready,
      pooled,
      last,
      ownerToken,
    );
  }

  async #waitForEntry(key: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const stop = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]);
    for await (const _ of this.#blockingReads(() => [key, '0-0'], stop, Math.min(timeoutMs, 5000))) return true;
    return false;
  }

  /** The ephemeral message with this uuid, while the capped live stream still holds it. */
  async liveEntryOfUuid(sessionId: string, uuid: string): Promise<LiveEntry | undefined> {
    for (const entry of await this.readLive(sessionId))
      if ((entry.message as { uuid?: unknown }).uuid === uuid) return entry;
    return undefined;
  }

  /** The state-setting control requests the owners handled, the last of each kind (input lines). */
  async stateRequests(sessionId: string): Promise<Map<string, string>> {
    const { state } = this.keys(sessionId);
    const all = await this.#call((c) => c.hgetall(state));
    return new Map(Object.entries(all));
  }

  /**
   * Drops state requests a new owner would handle again (`fields`, as `stateRequests` names them);
   * fenced like `append`. A run that ends drops its client's `initialize` (its hooks and callbacks
   * are that client's: the next run's client registers its own).
   */
  async forgetState(sessionId: string, ownerToken: string, fields: readonly string[]): Promise<void> {
    const { owner, state } = this.keys(sessionId);
    if (fields.length === 0) return;
    try {
      await this.#script('agentpipeLogForgetState', owner, state, ownerToken, ...fields);
    } catch (error) {
      const fenced = /^FENCED (expired|taken)/.exec((error as Error).message ?? '');
      if (fenced) throw new FencedError(sessionId, fenced[1] as 'expired' | 'taken');
      throw error;
    }
  }

  /** The id of the last input line of the inbox ('0-0' when empty). */
  async lastInputId(sessionId: string): Promise<string> {
    return this.#lastIdOf(this.keys(sessionId).inbox);
  }

  /** True when the inbox holds input no owner handled yet (after the cursor). */
  async hasPendingInput(sessionId: string): Promise<boolean> {
    const [last, cursor] = await Promise.all([this.lastInputId(sessionId), this.cursor(sessionId)]);
    return compareStreamIds(last, cursor) > 0;
  }

  /** The number of entries the inbox holds now (the handled ones are trimmed as the owner goes on). */
  async inputLength(sessionId: string): Promise<number> {
    const { inbox } = this.keys(sessionId);
    return this.#call((c) => c.xlen(inbox));
  }

  /** Adds client input lines to the session's inbox (any front end may); returns their ids. */
  async pushInput(sessionId: string, lines: readonly string[]): Promise<string[]> {
    const { inbox } = this.keys(sessionId);
    if (lines.length === 0) return [];
    const replies = await this.#call((c) => {
      const batch = c.multi();
      for (const line of lines) batch.xadd(inbox, '*', 'l', line);
      return batch.exec();
    });
    return (replies ?? []).map(([error, id], i) => {
      if (error) throw error;
      if (typeof id !== 'string') throw new Error(`session ${sessionId}: unexpected XADD answer for input line ${i}`);
      return id;
    });
  }

  /** The inbox's input lines after `fromId` (exclusive; default: from the start), in order. */
  async readInput(sessionId: string, fromId?: string): Promise<InputEntry[]> {
    const { inbox } = this.keys(sessionId);
    const entries: InputEntry[] = [];
    let start = fromId === undefined ? '-' : `(${checkId(fromId)}`;
    for (;;) {
      const page = await this.#call((c) => c.xrange(inbox, start, '+', 'COUNT', PAGE));
      for (const raw of page as unknown[]) entries.push(this.#inputEntry(raw, sessionId));
      if (page.length < PAGE) return entries;
      start = `(${entries.at(-1)!.id}`;
    }
  }

  /** Like `tail`, for the inbox's input lines (blocking reads; the owning worker's input). */
  tailInput(sessionId: string, fromId: string, signal: AbortSignal): AsyncGenerator<InputEntry> {
    return this.#tail(sessionId, this.keys(sessionId).inbox, fromId, signal, (raw) => this.#inputEntry(raw, sessionId));
  }

  /**
   * Records that the owner handled the inbox up to `inputId`; fenced like `append` (a FencedError
   * when it no longer owns the session). With `keepFrom`, the inbox entries before that id are
   * trimmed (the owner no longer needs them, nor would a new owner); with `state`, the input line
   * of a state-setting request is kept under its field for a new owner.
   */
  async setCursor(
    sessionId: string,
    ownerToken: string,
    inputId: string,
    more: { keepFrom?: string; state?: { field: string; line: string } } = {},
  ): Promise<void> {
    const { owner, cursor, inbox, state } = this.keys(sessionId);
    try {
      await this.#script(
        'agentpipeLogSetCursor',
        owner,
        cursor,
        inbox,
        state,
        ownerToken,
        checkId(inputId),
        more.keepFrom === undefined ? '' : checkId(more.keepFrom),
        more.state?.field ?? '',
        more.state?.line ?? '',
      );
    } catch (error) {
      const fenced = /^FENCED (expired|taken)/.exec((error as Error).message ?? '');
      if (fenced) throw new FencedError(sessionId, fenced[1] as 'expired' | 'taken');
      throw error;
    }
  }

  /** The id of the last inbox entry an owner handled ('0-0': none). */
  async cursor(sessionId: string): Promise<string> {
    const { cursor } = this.keys(sessionId);
    const value = await this.#call((c) => c.get(cursor));
    if (value === null) return '0-0';
    if (!STREAM_ID.test(value))
      throw new Error(
        `session ${sessionId}: the inbox cursor is not a stream id: ${JSON.stringify(value.slice(0, 80))}`,
      );
    return value;
  }

  /** Closes the connections this log opened (a client passed in is left open); running tails end. */
  async close(): Promise<void> {
    const spare = this.#spare;
    this.#spare = undefined;
    await (await spare?.catch(() => undefined))?.close();
    const tails = [...this.#tails];
    this.#tails.clear();
    await Promise.all(tails.map((t) => t.close()));
    const connection = this.#connection;
    this.#connection = undefined;
    await (await connection?.catch(() => undefined))?.close();
  }

  #conn(): Promise<Connection> {
    if (this.#connection) return this.#connection;
    const connecting = openRedis(this.#options.redis, this.#options).then((connection) => {
      for (const [name, definition] of Object.entries(SCRIPTS)) {
        if (!(name in connection.client)) connection.client.defineCommand(name, definition);
      }
      return connection;
    });
    // A failed connect is not cached: the next call tries again.
    connecting.catch(() => {
      if (this.#connection === connecting) this.#connection = undefined;
    });
    this.#connection = connecting;
    return connecting;
  }

  async #call<T>(run: (client: Redis) => Promise<T>): Promise<T> {
    const connection = await this.#conn();
    try {
      return await run(connection.client);
    } catch (error) {
      throw connection.wrap(error);
    }
  }

  #script(name: keyof typeof SCRIPTS, ...args: Array<string | number>): Promise<unknown> {
    return this.#call((client) => (client as unknown as ScriptCommands)[name](...args));
  }

  #entry(raw: unknown, sessionId: string): LogEntry {
    const { id, fields } = entryFields(raw, `session ${sessionId}`);
    const message = parseMessage(fields.get('m'), `session ${sessionId} entry ${id}`);
    const lastLive = fields.get('l');
    return lastLive !== undefined && STREAM_ID.test(lastLive) ? { id, message, lastLive } : { id, message };
  }

  #liveEntry(raw: unknown, sessionId: string): LiveEntry {
    const { id, fields } = entryFields(raw, `session ${sessionId} live`);
    return {
      id,
      after: fields.get('a') ?? '0-0',
      message: parseMessage(fields.get('m'), `session ${sessionId} live entry ${id}`),
    };
  }

  #inputEntry(raw: unknown, sessionId: string): InputEntry {
    const { id, fields } = entryFields(raw, `session ${sessionId} inbox`);
    const line = fields.get('l');
    if (line === undefined) throw new Error(`session ${sessionId} inbox entry ${id}: no input line`);
    return { id, line };
  }

  async *#tail<E extends { id: string }>(
    sessionId: string,
    key: string,
    fromId: string,
    signal: AbortSignal,
    parse: (raw: unknown) => E,
  ): AsyncGenerator<E> {
    if (signal.aborted) return;
    let last = fromId === '$' ? await this.#lastIdOf(key) : checkId(fromId);
    for await (const reply of this.#blockingReads(() => [key, last], signal)) {
      for (const raw of xreadEntries(reply, sessionId)) {
        const entry = parse(raw);
        last = entry.id;
        yield entry;
        if (signal.aborted) return;
      }
    }
  }

  /**
   * The replies of blocking XREADs of `streams()` (keys then ids, asked again before each read so
   * the caller moves its ids on) on a dedicated connection, until `signal` aborts (which closes the
   * connection: the pending read fails at once). A lost connection is retried with backoff for
   * `tailGiveUpMs`, then a RedisConnectionError is thrown.
   */
  async *#blockingReads(streams: () => string[], signal: AbortSignal, block?: number): AsyncGenerator<unknown> {
    const blocking = await this.#takeBlocking();
    this.#tails.add(blocking);
    const stop = (): void => blocking.client.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    const blockMs = block ?? this.#options.blockMs ?? 5000;
    const giveUpMs = this.#options.tailGiveUpMs ?? 30_000;
    let failingSince: number | undefined;
    let failures = 0;
    const read = (args: string[]): Promise<unknown> => {
      const reading = blocking.client.xread('COUNT', PAGE, 'BLOCK', blockMs, 'STREAMS', ...args);
      reading.catch(() => undefined); // awaited below
      return reading;
    };
    // The next read, asked as soon as a reply came (from the ids it ends at) while the caller handles it.
    let next: Promise<unknown> | undefined;
    try {
      while (!signal.aborted && this.#tails.has(blocking)) {
        let reply: unknown;
        try {
          reply = await (next ?? read(streams()));
          next = undefined;
          failingSince = undefined;
          failures = 0;
          if (reply !== null && reply !== undefined) {
            const args = streams();
            const half = args.length / 2;
            for (const [key, entries] of xreadStreams(reply, key0(args))) {
              const at = args.indexOf(key);
              const lastEntry = entries.at(-1);
              if (at >= 0 && at < half && Array.isArray(lastEntry) && typeof lastEntry[0] === 'string')
                args[half + at] = lastEntry[0];
            }
            next = read(args);
          }
        } catch (error) {
          next = undefined;
          if (signal.aborted || !this.#tails.has(blocking)) return;
          const wrapped = blocking.wrap(error);
          if (!(wrapped instanceof RedisConnectionError)) throw wrapped;
          failingSince ??= Date.now();
          if (Date.now() - failingSince > giveUpMs) throw wrapped;
          await pause(reconnectDelay(failures++), signal);
          continue;
        }
        if (reply !== null && reply !== undefined) yield reply;
      }
    } finally {
      signal.removeEventListener('abort', stop);
      this.#tails.delete(blocking);
      blocking.client.disconnect();
    }
  }

  /**
   * Opens a blocking connection now, for the next tail to take (`tail`, `follow`, `tailInput`
   * then skip a connect); with `keepSpare`, each tail that takes it opens the next one.
   */
  async warm(keepSpare = true): Promise<void> {
    this.#keepSpare = keepSpare;
    this.#spare ??= this.#openBlocking();
    await this.#spare;
  }

  #keepSpare = false;

  #openBlocking(): Promise<Connection> {
    const opening = this.#conn().then((base) => openBlocking(base.client, this.#options));
    opening.catch(() => {
      if (this.#spare === opening) this.#spare = undefined;
    });
    return opening;
  }

  /** The spare blocking connection if it is ready (a new one opened behind it), else a new one. */
  async #takeBlocking(): Promise<Connection> {
    const spare = this.#spare;
    this.#spare = this.#keepSpare ? this.#openBlocking() : undefined;
    const taken = spare ? await spare.catch(() => undefined) : undefined;
    if (taken && taken.client.status === 'ready') return taken;
    taken?.client.disconnect();
    return this.#openBlocking();
  }

  async #lastIdOf(key: string): Promise<string> {
    const top = await this.#call((c) => c.xrevrange(key, '+', '-', 'COUNT', 1));
    const first: unknown = top[0];
    return first === undefined ? '0-0' : entryFields(first, key).id;
  }
}
