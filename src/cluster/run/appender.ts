/**
 * A run's output on its way to the session log, in order. A record pushed while few appends are
 * in flight is appended at once (the client's first message waits for no batch); what is pushed
 * while many are in flight is gathered until the current burst of work yields (`setImmediate`)
 * and appended as one batch, pipelined behind the ones in flight instead of waiting for their
 * replies (Redis runs one connection's commands in order). Every append is fenced and extends the
 * lease (`onLanded` tells the lease keeper when it was sent).
 *
 * Pipelining alone does not keep the order when one append fails and a later one does not (a
 * script Redis forgot and loads again, an attempt given up on that lands late, a reply lost):
 * so the batches are numbered, and the append script refuses a batch whose predecessor has not
 * landed (`gap`: it is sent again once the ones before it settled) and answers a batch that
 * landed already as such (`landed`: not stored twice). Connection failures are retried in order
 * while `mayRetry` holds; a FencedError or a failure that lasts ends it, as does `seal()` (the
 * lease is lost: nothing more may land).
 */
import { randomUUID } from 'node:crypto';
import { monotonicMs } from '../../process/clock.ts';
import { AppendOrderError, type AppendOrder, type AppendRecord, type SessionLog } from '../log/index.ts';
import { RedisConnectionError } from '../connection.ts';
import { retryRedis } from '../redis-retry.ts';

/** What an appender appends with. */
export interface AppenderOptions {
  log: SessionLog;
  sessionId: string;
  /** The owner token of the run (appends are fenced with it). */
  token: string;
  /** Each append extends the lease by this much. */
  leaseMs: number;
  /** A failed append is tried again while this holds (default: for max(leaseMs, 5 s)). */
  mayRetry?: () => boolean;
  /** An append sent at `sentAt` (monotonic ms) landed. */
  onLanded?: (sentAt: number) => void;
}

/** Records per append. */
const BATCH = 500;
/** Appends in flight under which a push is sent at once (above it, pushes are gathered into batches). */
const SEND_AT_ONCE = 8;
/** Appends in flight before `push` makes its caller wait. */
const MAX_IN_FLIGHT = 16;

export class Appender {
  #pending: AppendRecord[] = [];
  /** Settles when every batch sent so far settled (retries included), in order. */
  #chain: Promise<void> = Promise.resolve();
  #inFlight = 0;
  #scheduled = false;
  #failed?: Error;
  #sealed?: Error;
  /** This appender's batches in the append script's order check: its own writer id, the last number given. */
  readonly #writer = randomUUID();
  #seq = 0;
  readonly #o: AppenderOptions;
  readonly #onFailure: (error: Error) => void;

  constructor(o: AppenderOptions, onFailure: (error: Error) => void) {
    this.#o = o;
    this.#onFailure = onFailure;
  }

  /** The error that ended it (nothing is appended after it). */
  get failed(): Error | undefined {
    return this.#failed ?? this.#sealed;
  }

  /** Queues records; resolves at once unless many are waiting (then when they landed). */
  push(records: AppendRecord[]): Promise<void> {
    if (this.failed || records.length === 0) return Promise.resolve();
    this.#pending.push(...records);
    if (this.#inFlight < SEND_AT_ONCE) this.#send();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#send();
      });
    }
    return this.#pending.length > 256 || this.#inFlight > MAX_IN_FLIGHT ? this.drain() : Promise.resolve();
  }

  /** Appends records after everything pushed before them and resolves once they landed; throws what ended it. */
  async pushAndWait(records: AppendRecord[]): Promise<void> {
    this.#throwIfFailed();
    this.#pending.push(...records);
    this.#send();
    await this.#chain;
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    const failed = this.failed;
    if (failed) throw failed;
  }

  /** Resolves when everything queued landed (or it failed). */
  async drain(): Promise<void> {
    for (;;) {
      if (this.#pending.length && !this.failed) this.#send();
      const chain = this.#chain;
      await chain;
      if (chain === this.#chain && (this.#pending.length === 0 || this.failed)) return;
    }
  }

  /** Nothing more lands: records not sent yet are dropped (those in flight may still land). */
  seal(error: Error): void {
    this.#sealed ??= error;
    this.#pending.length = 0;
  }

  /** Sends what is pending now, in batches, behind the appends in flight. */
  #send(): void {
    while (this.#pending.length && !this.failed) {
      const batch = this.#pending.splice(0, BATCH);
      const order: AppendOrder = { writer: this.#writer, seq: ++this.#seq };
      this.#inFlight++;
      const sent = this.#append(batch, order).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      const before = this.#chain;
      this.#chain = (async () => {
        const error = await sent;
        await before;
        if (error && !this.failed) await this.#retry(batch, order, error);
      })().finally(() => this.#inFlight--);
    }
  }

  /** One attempt at a batch; one that landed already (an earlier attempt's reply was lost) counts as landed. */
  async #append(batch: AppendRecord[], order: AppendOrder): Promise<void> {
    const { log, sessionId, token, leaseMs } = this.#o;
    const sentAt = monotonicMs();
    try {
      await log.appendRecords(sessionId, token, batch, leaseMs, order);
    } catch (error) {
      if (!(AppendOrderError.isInstance(error) && error.reason === 'landed')) throw error;
    }
    this.#o.onLanded?.(sentAt);
  }

  /**
   * Appends a batch again once the ones before it settled: after a connection failure (with backoff), or after a gap
   * (its predecessor failed where it did not, and has landed since).
   */
  async #retry(batch: AppendRecord[], order: AppendOrder, first: unknown): Promise<void> {
    const bound = this.#o.mayRetry
      ? { while: () => !this.#sealed && this.#o.mayRetry!() }
      : { forMs: Math.max(this.#o.leaseMs, 5000), while: () => !this.#sealed };
    try {
      const gap = AppendOrderError.isInstance(first) && first.reason === 'gap';
      if (!gap && !RedisConnectionError.isInstance(first)) throw first;
      await retryRedis(() => this.#append(batch, order), bound);
    } catch (error) {
      if (this.failed) return;
      this.#failed = error instanceof Error ? error : new Error(String(error));
      this.#pending.length = 0;
      this.#onFailure(this.#failed);
    }
  }
}
