/** The durable messages of a session (the `log` stream, its `uuids` index) and the fenced append. */
import { APPEND } from './lua/scripts.ts';
import { fenced } from './fence.ts';
import { logEntry, type LogEntry, type LogMessage } from './entries.ts';
import { checkId, STREAM_ID, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';

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
   * lands), extending the lease by `leaseMs` when given. Returns each record's stream id, in order.
   */
  async append(
    sessionId: string,
    keys: SessionKeys,
    token: string,
    records: readonly AppendRecord[],
    leaseMs?: number,
  ): Promise<string[]> {
    if (records.length === 0) return [];
    const rest = records.flatMap((r) => [r.kind, r.uuid, r.json]);
    const argv = {
      token,
      liveMaxLen: this.#settings.liveMaxLen,
      liveTtlMs: this.#settings.liveTtlMs,
      leaseMs: leaseMs === undefined ? 0 : Math.max(1, Math.ceil(leaseMs)),
    };
    const answer = await fenced(sessionId, () => this.#store.script(APPEND, keys, argv, rest));
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
