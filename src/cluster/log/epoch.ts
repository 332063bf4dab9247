/**
 * Redis's data epoch: a random value at `<prefix>:epoch`, set by the first component that finds
 * none. A Redis restarted without persistence (or flushed) lost it with every session: a component
 * that remembers another value, or finds none, after a reconnect knows that what it follows is
 * gone (issue 28 B5), and says so instead of waiting on streams that will never grow. The first to
 * find none sets a new one, so components that connect later have an epoch to watch too.
 */
import { randomUUID } from 'node:crypto';
import type { LogStore } from './store.ts';

/** What a data loss is called in messages. */
export const DATA_LOST =
  'Redis lost its data (restarted without persistence, or flushed): the sessions it held are gone; run Redis with ' +
  'appendonly yes';

export class DataEpoch {
  readonly #store: LogStore;
  readonly #key: string;
  #known?: string;

  constructor(store: LogStore, prefix: string) {
    this.#store = store;
    this.#key = `${prefix}:epoch`;
  }

  /** The epoch now (set when Redis has none), remembered. */
  async establish(): Promise<string> {
    this.#known = await this.#current();
    return this.#known;
  }

  /** True when Redis no longer holds the remembered epoch (it lost its data). */
  async lost(): Promise<boolean> {
    if (this.#known === undefined) {
      await this.establish();
      return false;
    }
    return (await this.#current()) !== this.#known;
  }

  async #current(): Promise<string> {
    const fresh = randomUUID();
    const [, value] = await this.#store.call((c) => Promise.all([c.set(this.#key, fresh, 'NX'), c.get(this.#key)]));
    return value ?? fresh;
  }
}
