/**
 * AsyncMessageQueue: the producer/consumer buffer between the agent loop and the output.
 * Semantics of Claude Code's queue (single iteration; done; error; return) plus a bound:
 * `push()` resolves only once the buffer is below `highWaterMark`, so a slow consumer
 * pauses the producer instead of growing memory. Both FIFOs are deques: `Array#shift` copies a
 * large array on every call, which made a burst of 10^6 control requests quadratic (issue 27).
 */
import Denque from 'denque';

export class AsyncMessageQueue<T> implements AsyncIterableIterator<T> {
  readonly #buffer = new Denque<T>();
  readonly #highWaterMark: number;
  readonly #onReturn?: () => void;
  #reader?: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void };
  readonly #writers = new Denque<() => void>();
  #done = false;
  #error: unknown;
  #hasError = false;
  #started = false;

  /** `onReturn` runs when the consumer stops early (`break` in `for await`). */
  constructor(options: { highWaterMark?: number; onReturn?: () => void } = {}) {
    this.#highWaterMark = Math.max(1, options.highWaterMark ?? 64);
    this.#onReturn = options.onReturn;
  }

  [Symbol.asyncIterator](): this {
    if (this.#started) throw new Error('Stream can only be iterated once');
    this.#started = true;
    return this;
  }

  /** Number of buffered items. */
  get size(): number {
    return this.#buffer.length;
  }

  /** True once `done()`, `error()` or `return()` was called. */
  get closed(): boolean {
    return this.#done || this.#hasError;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#buffer.length > 0) {
      const value = this.#buffer.shift() as T;
      this.#releaseWriters();
      return Promise.resolve({ done: false, value });
    }
    if (this.#hasError) return Promise.reject(this.#error);
    if (this.#done) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.#reader = { resolve, reject };
    });
  }

  /**
   * Adds an item. Returns nothing when the producer may go on at once, else a promise that
   * resolves when it may (a promise per item cost the delta path a microtask each).
   * Items pushed after close are dropped.
   */
  push(item: T): Promise<void> | undefined {
    if (this.closed) return undefined;
    const reader = this.#reader;
    if (reader) {
      this.#reader = undefined;
      reader.resolve({ done: false, value: item });
      return undefined;
    }
    this.#buffer.push(item);
    if (this.#buffer.length < this.#highWaterMark) return undefined;
    return new Promise((resolve) => this.#writers.push(resolve));
  }

  /** The next buffered item without waiting, if there is one (a consumer draining a burst). */
  take(): T | undefined {
    if (this.#buffer.length === 0) return undefined;
    const value = this.#buffer.shift() as T;
    this.#releaseWriters();
    return value;
  }

  /** No more items: the consumer ends after draining the buffer. */
  done(): void {
    this.#done = true;
    this.#releaseWriters(true);
    const reader = this.#reader;
    if (reader && this.#buffer.length === 0) {
      this.#reader = undefined;
      reader.resolve({ done: true, value: undefined });
    }
  }

  /** Fails the consumer (after the buffered items). */
  error(err: unknown): void {
    this.#hasError = true;
    this.#error = err;
    this.#releaseWriters(true);
    const reader = this.#reader;
    if (reader && this.#buffer.length === 0) {
      this.#reader = undefined;
      reader.reject(err);
    }
  }

  /** The consumer stops early. */
  return(): Promise<IteratorResult<T>> {
    this.#done = true;
    this.#buffer.clear();
    this.#releaseWriters(true);
    this.#onReturn?.();
    return Promise.resolve({ done: true, value: undefined });
  }

  #releaseWriters(all = false): void {
    while (this.#writers.length > 0 && (all || this.#buffer.length < this.#highWaterMark)) {
      this.#writers.shift()!();
    }
  }
}
