/** The durable messages of a session (the `log` stream, its `uuids` index) and the fenced append. */
import { APPEND } from './lua/scripts.ts';
import { fenced } from './fence.ts';
import { logEntry, type LogEntry, type LogMessage } from './entries.ts';
import { checkId, STREAM_ID, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';
import { AgentpipeError } from '../../process/errors.ts';

/** Where a batch stands in its writer's order: numbered 1, 2, 3… by one writer (an id unique to it). */
export interface AppendOrder {
  writer: string;
  seq: number;
}

/**
 * An ordered batch was refused before anything of it was written: `gap`, the batch before it has not landed (it failed
 * and is being sent again); `landed`, it was appended already (an earlier attempt's reply was lost).
 */
export class AppendOrderError extends AgentpipeError {
  static override readonly errorName: string = 'AppendOrderError';
  readonly reason: 'gap' | 'landed';
  constructor(sessionId: string, order: AppendOrder, reason: 'gap' | 'landed') {
    super(
      reason === 'gap'
        ? `session ${sessionId}: batch ${order.seq} refused: the batch before it has not landed`
        : `session ${sessionId}: batch ${order.seq} was appended already`,
    );
    this.reason = reason;
  }
}

const ORDER_REPLY = /^ORDER (gap|landed)/;

/** A message encoded for the append script: durable (`d`) or ephemeral (`e`), its uuid ('' : none) and JSON. */
export interface AppendRecord {
  kind: 'd' | 'e';
  uuid: string;
  json: string;
}

/** The default split: deltas and heartbeats are ephemeral, as in transcripts. */
export const isEphemeral = (message: LogMessage): boolean =>
  message.type === 'stream_event' || message.type === 'tool_progress';

/** Encodes a message for the append script (once: the JSON is what is stored and what front ends send on). */
export function appendRecord(message: LogMessage, ephemeral: boolean): AppendRecord {
  // A replay echoes the uuid of the user message (and so of its prompt line): not indexed, or the prompt line would
  // not land.
  const replay = message.type === 'user' && 'isReplay' in message && message.isReplay === true;
  const uuid = !replay && 'uuid' in message && typeof message.uuid === 'string' ? message.uuid : '';
  return { kind: ephemeral ? 'e' : 'd', uuid, json: JSON.stringify(message) };
}

/** How the durable log is written: the live stream's cap and expiry. */
export interface AppendSettings {
  liveMaxLen: number;
  liveTtlMs: number;
}

export class DurableLog {
  readonly #store: LogStore;
  readonly #settings: AppendSettings;
  constructor(store: LogStore, settings: AppendSettings) {
    this.#store = store;
    this.#settings = settings;
  }

  /**
   * Appends records in order, atomically and only while `token` holds the lease (else a FencedError and nothing
   * lands), extending the lease by `leaseMs` when given. Returns each record's stream id, in order. With `order`, the
   * batch must be the next of its writer (else an AppendOrderError and nothing lands).
   */
  async append(
    sessionId: string,
    keys: SessionKeys,
    token: string,
    records: readonly AppendRecord[],
    leaseMs?: number,
    order?: AppendOrder,
  ): Promise<string[]> {
    if (records.length === 0) return [];
    const rest = records.flatMap((r) => [r.kind, r.uuid, r.json]);
    const argv = {
      token,
      liveMaxLen: this.#settings.liveMaxLen,
      liveTtlMs: this.#settings.liveTtlMs,
      leaseMs: leaseMs === undefined ? 0 : Math.max(1, Math.ceil(leaseMs)),
      writer: order?.writer ?? '',
      seq: order?.seq ?? 0,
    };
    const answer = await fenced(sessionId, () => this.#store.script(APPEND, keys, argv, rest)).catch(
      (error: unknown) => {
        const match = order && error instanceof Error ? ORDER_REPLY.exec(error.message) : null;
        throw match && order ? new AppendOrderError(sessionId, order, match[1] === 'gap' ? 'gap' : 'landed') : error;
      },
    );
    if (!Array.isArray(answer) || answer.length !== records.length)
      throw new Error(`session ${sessionId}: unexpected answer from the append script: ${JSON.stringify(answer)}`);
    return answer.map((id: unknown) => {
      if (typeof id !== 'string' || !STREAM_ID.test(id))
        throw new Error(`session ${sessionId}: unexpected id from the append script: ${JSON.stringify(id)}`);
      return id;
    });
  }

  /** Every durable message after `fromId` (exclusive; default: from the start), in order, with stream ids. */
  read(sessionId: string, keys: SessionKeys, fromId?: string): Promise<LogEntry[]> {
    return this.#store.range(keys.log, fromId === undefined ? '-' : checkId(fromId), (raw) => logEntry(raw, sessionId));
  }

  /** The last `count` durable entries, newest first. */
  async lastEntries(sessionId: string, keys: SessionKeys, count: number): Promise<LogEntry[]> {
    const raw: unknown[] = await this.#store.call((c) => c.xrevrange(keys.log, '+', '-', 'COUNT', count));
    return raw.map((r) => logEntry(r, sessionId));
  }

  /** The first `count` durable entries, in order. */
  async firstEntries(sessionId: string, keys: SessionKeys, count: number): Promise<LogEntry[]> {
    const raw: unknown[] = await this.#store.call((c) => c.xrange(keys.log, '-', '+', 'COUNT', count));
    return raw.map((r) => logEntry(r, sessionId));
  }

  /** The stream id of the durable message with this uuid, if the log has it. */
  async idOfUuid(keys: SessionKeys, uuid: string): Promise<string | undefined> {
    const id = await this.#store.call((c) => c.hget(keys.uuids, uuid));
    return typeof id === 'string' && STREAM_ID.test(id) ? id : undefined;
  }

  /** Whether the session has a log in Redis. */
  async exists(keys: SessionKeys): Promise<boolean> {
    return (await this.#store.call((c) => c.exists(keys.log))) === 1;
  }

  /** The number of durable messages. */
  length(keys: SessionKeys): Promise<number> {
    return this.#store.call((c) => c.xlen(keys.log));
  }
}
