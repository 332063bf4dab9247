/**
 * The Redis keys of a session and the stream ids of its entries. Every key of a session carries
 * the session id as a hash tag (`<prefix>:{<id>}:…`), so Redis Cluster keeps a session on one
 * shard and one script can touch all of them:
 *
 * - `log`    Stream: the durable messages, field `m` = the message JSON, `o` = the owner token that
 *            appended it, `l` = the id of the last live entry appended before it; ids order them.
 * - `owner`  String: the lease, the owner token with an expiry (PX).
 * - `live`   Stream capped with MAXLEN ~ N and expiring when idle: the ephemeral messages
 *            (`stream_event` deltas, `tool_progress`), each with `a` = the id of the durable message
 *            it follows. Never in the log.
 * - `uuids`  Hash: message uuid -> stream id, so a retried append lands once.
 * - `inbox`  Stream: the client's input lines (field `l`), added by any front end, read by the owner.
 * - `cursor` String: the id of the last inbox entry the owner handled (set fenced, like appends).
 * - `state`  Hash: the last state-setting control request of each kind the owner handled.
 * - `ready`  Stream, expiring: a warm session's worker adds one entry once the session is open.
 * - `pooled` String, expiring: set while a warm session waits in a front end's pool.
 * - `order`  String: `<writer> <seq>`, the last batch an ordered writer (a run's Appender) appended. A batch that is
 *            not the next of its writer is refused (`ORDER gap`), one that already landed is answered `ORDER landed`:
 *            pipelined appends land in the order sent even when one of them fails and is sent again.
 */

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
  order: string;
}

/** The keys of a session (a hash tag per session: one Redis Cluster slot); a TypeError for an unusable id. */
export function sessionKeys(prefix: string, sessionId: string): SessionKeys {
  if (!sessionId || /[{}\s]/.test(sessionId) || sessionId.length > 256)
    throw new TypeError(`not a usable session id: ${JSON.stringify(sessionId)}`);
  const base = `${prefix}:{${sessionId}}`;
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
    order: `${base}:order`,
  };
}

/** Every key of a session, in the order of SessionKeys (what a delete removes). */
export const allKeys = (keys: SessionKeys): string[] => [
  keys.log,
  keys.owner,
  keys.live,
  keys.uuids,
  keys.inbox,
  keys.cursor,
  keys.state,
  keys.ready,
  keys.pooled,
  keys.order,
];

/** A stream id: `<ms>-<seq>`. */
export const STREAM_ID = /^\d+-\d+$/;

/** The id before every entry of a stream. */
export const START_ID = '0-0';

/** Orders two stream ids (`<ms>-<seq>`). */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}

/** The time of a stream id (ms since the epoch). */
export const streamIdTime = (id: string): number => Number(id.split('-')[0]);

/** Checks a stream id given by a caller (`0-0` is the start). */
export function checkId(id: string): string {
  if (!STREAM_ID.test(id)) throw new TypeError(`not a stream id: ${JSON.stringify(id)} (expected "<ms>-<seq>")`);
  return id;
}

/** Checks an owner token and a lease length given by a caller. */
export function checkLease(ownerToken: string, leaseMs: number): void {
  if (typeof ownerToken !== 'string' || ownerToken === '')
    throw new TypeError('the owner token must be a non-empty string');
  if (!Number.isFinite(leaseMs) || leaseMs < 1)
    throw new TypeError(`the lease must be a positive number of ms, not ${leaseMs}`);
}
