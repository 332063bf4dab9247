/** The live stream of a session: its ephemeral messages (deltas, heartbeats), capped and expiring. */
import { liveEntry, type LiveEntry } from './entries.ts';
import { checkId, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';

export class LiveStream {
  readonly #store: LogStore;
  constructor(store: LogStore) {
    this.#store = store;
  }

  /** The ephemeral messages still in the (capped) live stream after `fromId` (default: all). */
  async read(sessionId: string, keys: SessionKeys, fromId?: string): Promise<LiveEntry[]> {
    const start = fromId === undefined ? '-' : `(${checkId(fromId)}`;
    const page: unknown[] = await this.#store.call((c) => c.xrange(keys.live, start, '+'));
    return page.map((raw) => liveEntry(raw, sessionId));
  }

  /** The ephemeral message with this uuid, while the capped live stream still holds it. */
  async entryOfUuid(sessionId: string, keys: SessionKeys, uuid: string): Promise<LiveEntry | undefined> {
    return (await this.read(sessionId, keys)).find((entry) => 'uuid' in entry.message && entry.message.uuid === uuid);
  }

  /** The id of the last ephemeral message ('0-0' when none). */
  lastId(keys: SessionKeys): Promise<string> {
    return this.#store.lastIdOf(keys.live);
  }

  /** The live stream's messages as they are added (entries trimmed away by the cap are skipped). */
  tail(sessionId: string, keys: SessionKeys, fromId: string, signal: AbortSignal): AsyncGenerator<LiveEntry> {
    return this.#store.tail(keys.live, fromId, signal, (raw) => liveEntry(raw, sessionId));
  }
}
