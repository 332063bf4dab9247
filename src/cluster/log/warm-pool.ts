/**
 * The marks of a warm session: `ready` (its worker opened it and reads its inbox) and `pooled` (it
 * waits in a front end's pool: no connection may name it), the claim that takes it for a client,
 * and the discard of one no client took.
 */
import { CLAIM_WARM, DELETE_IF_UNCHANGED } from './lua/scripts.ts';
import { START_ID, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';

export class WarmMarks {
  readonly #store: LogStore;
  constructor(store: LogStore) {
    this.#store = store;
  }

  /** Says the warm session is open and reading its inbox; a claim or a discard deletes it, it expires after `ttlMs`. */
  async markReady(keys: SessionKeys, ttlMs: number): Promise<void> {
    await this.#store.call((c) =>
      c.multi().xadd(keys.ready, '*', 'r', '1').pexpire(keys.ready, Math.ceil(ttlMs)).exec(),
    );
  }

  /** Marks the session as waiting in a pool (before its job is queued); a claim or its discard deletes the mark. */
  async markPooled(keys: SessionKeys, ttlMs: number): Promise<void> {
    await this.#store.call((c) => c.set(keys.pooled, '1', 'PX', Math.ceil(ttlMs)));
  }

  /** Removes the pooled mark (a claim that failed for good: the session belongs to nobody's pool any more). */
  async unmarkPooled(keys: SessionKeys): Promise<void> {
    await this.#store.call((c) => c.del(keys.pooled));
  }

  /** True while the session waits in a pool. */
  async isPooled(keys: SessionKeys): Promise<boolean> {
    return (await this.#store.call((c) => c.exists(keys.pooled))) === 1;
  }

  /** Resolves true once a worker said the session is ready, false after `timeoutMs` or an abort. */
  waitReady(keys: SessionKeys, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.#store.waitForEntry(keys.ready, timeoutMs, signal);
  }

  /**
   * Takes a ready warm session for a client with `line` (unique per claim) as its first input line; false when it is
   * not ready (discarded): nothing was added then. A claim retried after a lost answer says true again.
   */
  async claim(keys: SessionKeys, line: string): Promise<boolean> {
    return (await this.#store.script(CLAIM_WARM, keys, { line })) === 1;
  }

  /**
   * Deletes the keys of a warm session no client took: refused (false) when its log is not empty, another owner holds
   * its lease, or its inbox has an entry no owner handled (a client claimed it).
   */
  async discard(keys: SessionKeys, token: string): Promise<boolean> {
    return (await this.#store.script(DELETE_IF_UNCHANGED, keys, { lastId: START_ID, token })) === 1;
  }
}
