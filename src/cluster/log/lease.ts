/** The lease of a session: one writer at a time, with an expiry (the `owner` key). */
import { ACQUIRE, RELEASE, RENEW } from './lua/scripts.ts';
import { FencedError } from './fence.ts';
import { checkLease, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';

export class Lease {
  readonly #store: LogStore;
  constructor(store: LogStore) {
    this.#store = store;
  }

  /** Takes the lease for `leaseMs` if nobody holds it (or the holder's expired); true if `token` holds it now. */
  async acquire(keys: SessionKeys, token: string, leaseMs: number): Promise<boolean> {
    checkLease(token, leaseMs);
    return (await this.#store.script(ACQUIRE, keys, { token, leaseMs: Math.ceil(leaseMs) })) === 1;
  }

  /** Extends the lease `token` holds; throws a FencedError if it no longer holds it. */
  async renew(sessionId: string, keys: SessionKeys, token: string, leaseMs: number): Promise<void> {
    checkLease(token, leaseMs);
    const answer = await this.#store.script(RENEW, keys, { token, leaseMs: Math.ceil(leaseMs) });
    if (answer !== 1) throw new FencedError(sessionId, answer === -1 ? 'taken' : 'expired');
  }

  /** Gives the lease up (if `token` still holds it); true if it did. */
  async release(keys: SessionKeys, token: string): Promise<boolean> {
    return (await this.#store.script(RELEASE, keys, { token })) === 1;
  }

  /** Who holds the lease and for how much longer, or null. */
  async owner(keys: SessionKeys): Promise<{ token: string; ttlMs: number } | null> {
    const [token, ttl] = await this.#store.call((c) => Promise.all([c.get(keys.owner), c.pttl(keys.owner)]));
    return typeof token === 'string' ? { token, ttlMs: Math.max(0, ttl) } : null;
  }
}
