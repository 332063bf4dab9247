/**
 * The inbox of a session: the client's input lines (any front end adds them), read by the owner
 * in order, with the owner's cursor (the last entry it handled, set fenced) and the state-setting
 * requests it handled (the last of each kind), which a new owner handles again.
 */
import { FORGET_STATE, SET_CURSOR } from './lua/scripts.ts';
import { fenced } from './fence.ts';
import { inputEntry, type InputEntry } from './entries.ts';
import { checkId, compareStreamIds, START_ID, STREAM_ID, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';

export class Inbox {
  readonly #store: LogStore;
  constructor(store: LogStore) {
    this.#store = store;
  }

  /** Adds client input lines (any front end may); returns their ids. */
  async push(sessionId: string, keys: SessionKeys, lines: readonly string[]): Promise<string[]> {
    if (lines.length === 0) return [];
    const replies = await this.#store.call((c) => {
      const batch = c.multi();
      for (const line of lines) batch.xadd(keys.inbox, '*', 'l', line);
      return batch.exec();
    });
    return (replies ?? []).map(([error, id], i) => {
      if (error) throw error;
      if (typeof id !== 'string') throw new Error(`session ${sessionId}: unexpected XADD answer for input line ${i}`);
      return id;
    });
  }

  /** The input lines after `fromId` (exclusive; default: from the start), in order. */
  read(sessionId: string, keys: SessionKeys, fromId?: string): Promise<InputEntry[]> {
    return this.#store.range(keys.inbox, fromId === undefined ? '-' : checkId(fromId), (raw) =>
      inputEntry(raw, sessionId),
    );
  }

  /** The input lines as they are added (the owning worker's input). */
  tail(sessionId: string, keys: SessionKeys, fromId: string, signal: AbortSignal): AsyncGenerator<InputEntry> {
    return this.#store.tail(keys.inbox, fromId, signal, (raw) => inputEntry(raw, sessionId));
  }

  /** The id of the last input line ('0-0' when empty). */
  lastId(keys: SessionKeys): Promise<string> {
    return this.#store.lastIdOf(keys.inbox);
  }

  /** The number of entries the inbox holds now (the handled ones are trimmed as the owner goes on). */
  length(keys: SessionKeys): Promise<number> {
    return this.#store.call((c) => c.xlen(keys.inbox));
  }

  /** The id of the last entry an owner handled ('0-0': none). */
  async cursor(sessionId: string, keys: SessionKeys): Promise<string> {
    const value = await this.#store.call((c) => c.get(keys.cursor));
    if (value === null) return START_ID;
    if (!STREAM_ID.test(value))
      throw new Error(
        `session ${sessionId}: the inbox cursor is not a stream id: ${JSON.stringify(value.slice(0, 80))}`,
      );
    return value;
  }

  /** True when the inbox holds input no owner handled yet (after the cursor). */
  async hasPending(sessionId: string, keys: SessionKeys): Promise<boolean> {
    const [last, cursor] = await Promise.all([this.lastId(keys), this.cursor(sessionId, keys)]);
    return compareStreamIds(last, cursor) > 0;
  }

  /**
   * Records that the owner handled the inbox up to `inputId`; fenced. With `keepFrom`, the entries before that id are
   * trimmed; with `state`, the line of a state-setting request is kept under its field for a new owner.
   */
  async setCursor(
    sessionId: string,
    keys: SessionKeys,
    token: string,
    inputId: string,
    more: { keepFrom?: string; state?: { field: string; line: string } } = {},
  ): Promise<void> {
    const argv = {
      token,
      inputId: checkId(inputId),
      keepFrom: more.keepFrom === undefined ? '' : checkId(more.keepFrom),
      field: more.state?.field ?? '',
      line: more.state?.line ?? '',
    };
    await fenced(sessionId, () => this.#store.script(SET_CURSOR, keys, argv));
  }

  /** The state-setting control requests the owners handled, the last of each kind (input lines). */
  async stateRequests(keys: SessionKeys): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.#store.call((c) => c.hgetall(keys.state))));
  }

  /** Drops state requests a new owner would handle again (`fields`, as `stateRequests` names them); fenced. */
  async forgetState(sessionId: string, keys: SessionKeys, token: string, fields: readonly string[]): Promise<void> {
    if (fields.length === 0) return;
    await fenced(sessionId, () => this.#store.script(FORGET_STATE, keys, { token }, fields));
  }
}
