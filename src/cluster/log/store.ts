/**
 * The Redis side of the session logs: one connection for commands and scripts (opened on first
 * use; a failed connect is not cached), dedicated connections for blocking reads (one per tail,
 * with a spare opened ahead), and the paged and blocking reads every concern of the log shares.
 */
import { sleep } from '../../process/retry.ts';
import type { Redis } from 'ioredis';
import { monotonicMs } from '../../process/clock.ts';
import { openBlocking, openRedis, reconnectDelay, RedisConnectionError } from '../connection.ts';
import type { Connection, RedisConnectionOptions, RedisTarget } from '../connection.ts';
import { retryRedis } from '../redis-retry.ts';
import { callScript, type LuaScript } from './lua/call.ts';
import { entryFields, xreadEntries, xreadStreams } from './entries.ts';
import { checkId, START_ID } from './keys.ts';

/** Options of the store (a SessionLog's). */
export interface StoreOptions extends RedisConnectionOptions {
  /** A `redis://` URL (the store opens and closes its connections) or a client you own. */
  redis: RedisTarget;
  /** How long one blocking XREAD waits before asking again. Default 5000 ms. */
  blockMs?: number;
  /** Blocking reads throw after Redis has been unreachable this long. Default 30000 ms. */
  tailGiveUpMs?: number;
}

/** Entries per page of a read. */
export const PAGE = 1000;

export class LogStore {
  readonly #options: StoreOptions;
  #connection?: Promise<Connection>;
  readonly #tails = new Set<Connection>();
  /** A blocking connection opened ahead of the next tail (a tail starts without a connect on its way). */
  #spare?: Promise<Connection>;
  #keepSpare = false;

  constructor(options: StoreOptions) {
    this.#options = options;
  }

  /** Connects now (the first command does otherwise); a RedisConnectionError that says why not. */
  async connect(): Promise<Connection> {
    return this.#conn();
  }

  /**
   * Calls `listener` each time the command connection is ready again after it was lost (a restarted Redis), not for
   * the first connect; returns a function that stops it.
   */
  async onReconnect(listener: () => void): Promise<() => void> {
    const { client } = await this.#conn();
    client.on('ready', listener);
    return () => void client.off('ready', listener);
  }

  /** Runs a command on the command connection; a lost connection becomes a RedisConnectionError. */
  async call<T>(run: (client: Redis) => Promise<T>): Promise<T> {
    const connection = await this.#conn();
    try {
      return await run(connection.client);
    } catch (error) {
      throw connection.wrap(error);
    }
  }

  /** Runs a Lua script of the log (lua/scripts.ts) by its contract. */
  script<K extends string, A extends string>(
    script: LuaScript<K, A>,
    keys: Record<K, string>,
    argv: Record<A, string | number>,
    rest?: ReadonlyArray<string | number>,
  ): Promise<unknown> {
    return this.call((client) => callScript(client, script, keys, argv, rest));
  }

  /** The raw entries of `key` after `fromId` ('-': from the start) up to `toId`, all of them, a page at a time. */
  async range<E extends { id: string }>(
    key: string,
    fromId: string,
    parse: (raw: unknown) => E,
    options: { toId?: string; keep?: (entry: E) => boolean; count?: number } = {},
  ): Promise<E[]> {
    const count = options.count ?? PAGE;
    const found: E[] = [];
    for (let start = fromId === '-' ? '-' : `(${fromId}`; ;) {
      const page: unknown[] = await this.call((c) => c.xrange(key, start, options.toId ?? '+', 'COUNT', count));
      for (const raw of page) {
        const entry = parse(raw);
        if (options.keep && !options.keep(entry)) return found;
        found.push(entry);
      }
      if (page.length < count) return found;
      start = `(${found.at(-1)!.id}`;
    }
  }

  /** The id of the last entry of a stream ('0-0' when empty or missing). */
  async lastIdOf(key: string): Promise<string> {
    const top: unknown[] = await this.call((c) => c.xrevrange(key, '+', '-', 'COUNT', 1));
    return top[0] === undefined ? START_ID : entryFields(top[0], key).id;
  }

  /**
   * The replies of blocking XREADs of `streams()` (keys then ids, asked again before each read so
   * the caller moves its ids on) on a dedicated connection, until `signal` aborts (which closes the
   * connection: the pending read fails at once). A lost connection is retried with backoff for
   * `tailGiveUpMs`, then a RedisConnectionError is thrown. The next read is asked as soon as a
   * reply came (from the ids it ends at) while the caller handles it.
   */
  async *blockingReads(streams: () => string[], signal: AbortSignal, block?: number): AsyncGenerator<unknown> {
    const blockMs = block ?? this.#options.blockMs ?? 5000;
    const giveUpMs = this.#options.tailGiveUpMs ?? 30_000;
    // Opened through an outage too (a follow that starts while Redis restarts waits for it, within the same bound).
    let blocking: Connection;
    try {
      blocking = await retryRedis(() => this.#takeBlocking(), { forMs: giveUpMs, signal });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    if (signal.aborted) return void blocking.client.disconnect();
    this.#tails.add(blocking);
    const stop = (): void => blocking.client.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    let failingSince: number | undefined;
    let failures = 0;
    const read = (args: string[]): Promise<unknown> => {
      const reading = blocking.client.xread('COUNT', PAGE, 'BLOCK', blockMs, 'STREAMS', ...args);
      reading.catch(() => undefined); // awaited below
      return reading;
    };
    let next: Promise<unknown> | undefined;
    try {
      while (!signal.aborted && this.#tails.has(blocking)) {
        let reply: unknown;
        try {
          reply = await (next ?? read(streams()));
          next = undefined;
          failingSince = undefined;
          failures = 0;
          if (reply !== null && reply !== undefined) next = read(movedOn(streams(), reply));
        } catch (error) {
          next = undefined;
          if (signal.aborted || !this.#tails.has(blocking)) return;
          const wrapped = blocking.wrap(error);
          if (!RedisConnectionError.isInstance(wrapped)) throw wrapped;
          failingSince ??= monotonicMs();
          if (monotonicMs() - failingSince > giveUpMs) throw wrapped;
          await sleep(reconnectDelay(failures++), { signal, onAbort: 'resolve' });
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
   * The entries of `key` after `fromId` (`$`: only those added from now on) as they are added, through blocking reads;
   * ends when `signal` aborts. Survives a Redis restart (reads resume from the last id seen).
   */
  async *tail<E extends { id: string }>(
    key: string,
    fromId: string,
    signal: AbortSignal,
    parse: (raw: unknown) => E,
  ): AsyncGenerator<E> {
    if (signal.aborted) return;
    let last = fromId === '$' ? await this.lastIdOf(key) : checkId(fromId);
    for await (const reply of this.blockingReads(() => [key, last], signal)) {
      for (const raw of xreadEntries(reply, key)) {
        const entry = parse(raw);
        last = entry.id;
        yield entry;
        if (signal.aborted) return;
      }
    }
  }

  /** Resolves true once `key` has an entry, false after `timeoutMs` or an abort. */
  async waitForEntry(key: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const stop = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]);
    for await (const _ of this.blockingReads(() => [key, START_ID], stop, Math.min(timeoutMs, 5000))) return true;
    return false;
  }

  /** Opens a blocking connection now for the next tail; with `keepSpare`, each tail that takes it opens the next. */
  async warm(keepSpare = true): Promise<void> {
    this.#keepSpare = keepSpare;
    this.#spare ??= this.#openBlocking();
    await this.#spare;
  }

  /** Closes the connections it opened (a client passed in is left open); running tails end. */
  async close(): Promise<void> {
    const spare = this.#spare;
    this.#spare = undefined;
    // A spare that failed to open has nothing to close.
    await (await spare?.catch(() => undefined))?.close();
    const tails = [...this.#tails];
    this.#tails.clear();
    await Promise.all(tails.map((t) => t.close()));
    const connection = this.#connection;
    this.#connection = undefined;
    // A connection that failed to open told whoever awaited it.
    await (await connection?.catch(() => undefined))?.close();
  }

  #conn(): Promise<Connection> {
    if (this.#connection) return this.#connection;
    const connecting = openRedis(this.#options.redis, this.#options);
    // A failed connect is not cached: the next call tries again.
    connecting.catch(() => {
      if (this.#connection === connecting) this.#connection = undefined;
    });
    this.#connection = connecting;
    return connecting;
  }

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
    // A spare that failed to open: a new one is opened below.
    const taken = spare ? await spare.catch(() => undefined) : undefined;
    if (taken && taken.client.status === 'ready') return taken;
    taken?.client.disconnect();
    return this.#openBlocking();
  }
}

/** XREAD arguments (keys, then ids) with each stream's id moved to the last entry `reply` holds for it. */
function movedOn(args: string[], reply: unknown): string[] {
  const half = args.length / 2;
  for (const [key, entries] of xreadStreams(reply, args[0] ?? '?')) {
    const at = args.indexOf(key);
    const last: unknown = entries.at(-1);
    if (at >= 0 && at < half && Array.isArray(last) && typeof last[0] === 'string') args[half + at] = last[0];
  }
  return args;
}
