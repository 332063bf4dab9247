/**
 * A run's output on its way to the session log, in order. A record pushed while few appends are
 * in flight is appended at once (the client's first message waits for no batch); what is pushed
 * while many are in flight is gathered until the current burst of work yields (`setImmediate`)
 * and appended as one batch, pipelined behind the ones in flight instead of waiting for their
 * replies (Redis runs one connection's commands in order). Every append is fenced and extends the
 * lease (`onLanded` tells the lease keeper when it was sent). Connection failures are retried in
 * order while `mayRetry` holds (durable messages land once: appends are idempotent by uuid; an
 * ephemeral delta may be stored twice, and followers skip the repeat); a FencedError or a failure
 * that lasts ends it, as does
 * `seal()` (the lease is lost: nothing more may land).
 */
import { monotonicMs } from '../../process/clock.ts';
import type { AppendRecord, SessionLog } from '../log/index.ts';
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
      this.#inFlight++;
      const sent = this.#append(batch).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      const before = this.#chain;
      this.#chain = (async () => {
        const error = await sent;
        await before;
        if (error && !this.failed) await this.#retry(batch, error);
      })().finally(() => this.#inFlight--);
    }
  }

  async #append(batch: AppendRecord[]): Promise<void> {
    const { log, sessionId, token, leaseMs } = this.#o;
    const sentAt = monotonicMs();
    await log.appendRecords(sessionId, token, batch, leaseMs);
    this.#o.onLanded?.(sentAt);
  }

  /** Appends a batch again after a connection failure (in order: the later batches wait for it). */
  async #retry(batch: AppendRecord[], first: unknown): Promise<void> {
    const bound = this.#o.mayRetry
      ? { while: () => !this.#sealed && this.#o.mayRetry!() }
      : { forMs: Math.max(this.#o.leaseMs, 5000), while: () => !this.#sealed };
    try {
      if (!RedisConnectionError.isInstance(first)) throw first;
      await retryRedis(() => this.#append(batch), bound);
    } catch (error) {
      if (this.failed) return;
      this.#failed = error instanceof Error ? error : new Error(String(error));
      this.#pending.length = 0;
      this.#onFailure(this.#failed);
    }
  }
}
