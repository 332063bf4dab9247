/**
 * Following a session: its durable messages after an id and, with `live`, its ephemeral ones, in
 * the order they were appended (a delta after the durable message it follows and before the
 * next one), through blocking XREADs of both streams at once.
 *
 * One XREAD reply does not settle the order: Redis may answer a read blocked on two streams with
 * the one that got data first (one append script can add a message, deltas, then a message: the
 * reply holds both messages and no delta), and COUNT caps each stream on its own. So before a
 * durable message the deltas that precede it and were not given yet are read (XRANGE of the live
 * stream), and before a delta the durable messages up to the one it follows (XRANGE of the log);
 * the read's own copies of what was given that way are skipped.
 *
 * An append retried after a lost connection lands its durable messages once (by uuid) but may
 * add its ephemeral ones again: a delta whose uuid was among the last RECENT_LIVE given is skipped,
 * so every delta comes once.
 */
import { liveEntry, logEntry, xreadStreams, type FollowedEntry, type LiveEntry, type LogEntry } from './entries.ts';
import { checkId, compareStreamIds, type SessionKeys } from './keys.ts';
import type { LogStore } from './store.ts';

/** How many of the last deltas' uuids a follow remembers (a retried append re-adds at most a batch of 500). */
const RECENT_LIVE = 2048;

/** The last durable message and the last delta given (the reads go on from there). */
interface Position {
  durable: string;
  live: string | undefined;
}

export class Follower {
  readonly #store: LogStore;
  readonly #sessionId: string;
  readonly #keys: SessionKeys;
  /** The uuids of the last deltas given, oldest first. */
  readonly #recent = new Set<string>();
  constructor(store: LogStore, sessionId: string, keys: SessionKeys) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#keys = keys;
  }

  /** Follows from `fromId` (and the live stream from `live.fromId`, `$`: from now on) until `signal` aborts. */
  async *follow(fromId: string, signal: AbortSignal, live?: { fromId: string }): AsyncGenerator<FollowedEntry> {
    const keys = this.#keys;
    if (signal.aborted) return;
    const at: Position = {
      durable: checkId(fromId),
      live: live ? (live.fromId === '$' ? await this.#store.lastIdOf(keys.live) : checkId(live.fromId)) : undefined,
    };
    const streams = () => (at.live === undefined ? [keys.log, at.durable] : [keys.log, keys.live, at.durable, at.live]);
    for await (const reply of this.#store.blockingReads(streams, signal)) {
      const durable: LogEntry[] = [];
      const deltas: LiveEntry[] = [];
      for (const [key, entries] of xreadStreams(reply, this.#sessionId)) {
        if (key === keys.log) for (const raw of entries) durable.push(logEntry(raw, this.#sessionId));
        else for (const raw of entries) deltas.push(liveEntry(raw, this.#sessionId));
      }
      for (const item of await this.#merge(durable, deltas, at)) {
        yield item;
        if (signal.aborted) return;
      }
    }
  }

  /** One reply merged (a delta before every durable message after the one it follows), each checked against `at`. */
  async #merge(durable: LogEntry[], deltas: LiveEntry[], at: Position): Promise<FollowedEntry[]> {
    const out: FollowedEntry[] = [];
    let d = 0;
    for (const delta of deltas) {
      while (d < durable.length && compareStreamIds(durable[d]!.id, delta.after) <= 0)
        out.push(...(await this.#withDeltas(durable[d++]!, at)));
      if (compareStreamIds(delta.id, at.live!) <= 0) continue;
      if (compareStreamIds(delta.after, at.durable) > 0) {
        const before = await this.#store.range(this.#keys.log, at.durable, (raw) => logEntry(raw, this.#sessionId), {
          toId: delta.after,
        });
        for (const entry of before) out.push(...(await this.#withDeltas(entry, at)));
      }
      if (compareStreamIds(delta.id, at.live!) <= 0) continue;
      at.live = delta.id;
      if (this.#fresh(delta)) out.push({ kind: 'live', entry: delta });
    }
    for (; d < durable.length; d++) out.push(...(await this.#withDeltas(durable[d]!, at)));
    return out;
  }

  /** False for a delta given already (re-added by a retried append); remembers it otherwise. */
  #fresh(delta: LiveEntry): boolean {
    const uuid = 'uuid' in delta.message ? delta.message.uuid : undefined;
    if (typeof uuid !== 'string') return true;
    if (this.#recent.has(uuid)) return false;
    this.#recent.add(uuid);
    if (this.#recent.size > RECENT_LIVE) this.#recent.delete(this.#recent.values().next().value!);
    return true;
  }

  /**
   * A durable entry (none if given already), after the deltas that precede it and were not given yet (when deltas are
   * followed). Moves `at` on.
   */
  async #withDeltas(entry: LogEntry, at: Position): Promise<FollowedEntry[]> {
    if (compareStreamIds(entry.id, at.durable) <= 0) return [];
    const items: FollowedEntry[] = [];
    // The deltas appended before `entry` that were not given yet: none when the append recorded that the last one
    // before it was given already (no read); else read (a delta's `after` never decreases: those before it come first).
    const upTo = entry.lastLive ?? '+';
    if (at.live !== undefined && (upTo === '+' || compareStreamIds(upTo, at.live) > 0)) {
      const before = entry.id;
      const deltas = await this.#store.range(this.#keys.live, at.live, (raw) => liveEntry(raw, this.#sessionId), {
        toId: upTo,
        keep: (e) => compareStreamIds(e.after, before) < 0,
        count: 64,
      });
      for (const delta of deltas) {
        at.live = delta.id;
        if (this.#fresh(delta)) items.push({ kind: 'live', entry: delta });
      }
    }
    at.durable = entry.id;
    items.push({ kind: 'durable', entry });
    return items;
  }
}
