/**
 * A run's output on its way to the session log, in order. A message pushed while nothing is in
 * flight is appended at once (the client's first message waits for no batch); what is pushed
 * while appends are in flight is gathered until the current burst of work yields
 * (`setImmediate`) and appended as one batch, pipelined behind the ones in flight instead of
 * waiting for their replies (Redis runs one connection's commands in order). Connection failures
 * are retried in order with backoff (durable messages land once: appends are idempotent by
 * uuid; an ephemeral delta may come twice); a FencedError or a failure that lasts ends it.
 */
import { RedisConnectionError, reconnectDelay } from './connection.ts';
import type { LogMessage, SessionLog } from './log/index.ts';

/** What an appender appends with. */
export interface AppenderOptions {
  log: SessionLog;
  sessionId: string;
  /** The owner token of the run (appends are fenced with it). */
  token: string;
  /** Connection failures are retried for max(leaseMs, 5 s). */
  leaseMs: number;
}

/** Messages per append. */
const BATCH = 500;
/** Appends in flight under which a push is sent at once (above it, pushes are gathered into batches). */
const SEND_AT_ONCE = 8;
/** Appends in flight before `push` makes its caller wait. */
const MAX_IN_FLIGHT = 16;

export class Appender {
  #pending: LogMessage[] = [];
  /** Settles when every batch sent so far settled (retries included), in order. */
  #chain: Promise<void> = Promise.resolve();
  #inFlight = 0;
  #scheduled = false;
  #failed?: Error;
  readonly #o: AppenderOptions;
  readonly #onFailure: (error: Error) => void;

  constructor(o: AppenderOptions, onFailure: (error: Error) => void) {
    this.#o = o;
    this.#onFailure = onFailure;
  }

  /** The error that ended it (nothing is appended after it). */
  get failed(): Error | undefined {
    return this.#failed;
  }

  /** Queues messages; resolves at once unless many are waiting (then when they landed). */
  push(messages: LogMessage[]): Promise<void> {
    if (this.#failed || messages.length === 0) return Promise.resolve();
    this.#pending.push(...messages);
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

  /** Resolves when everything queued landed (or it failed). */
  async drain(): Promise<void> {
    for (;;) {
      if (this.#pending.length && !this.#failed) this.#send();
      const chain = this.#chain;
      await chain;
      if (chain === this.#chain && (this.#pending.length === 0 || this.#failed)) return;
    }
  }

  /** Sends what is pending now, in batches, behind the appends in flight. */
  #send(): void {
    const { log, sessionId, token } = this.#o;
    while (this.#pending.length && !this.#failed) {
      const batch = this.#pending.splice(0, BATCH);
      this.#inFlight++;
      const sent = log.append(sessionId, token, batch).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      const before = this.#chain;
      this.#chain = (async () => {
        const error = await sent;
        await before;
        if (error && !this.#failed) await this.#retry(batch, error);
      })().finally(() => this.#inFlight--);
    }
  }

  /** Appends a batch again after a connection failure (in order: the later batches wait for it). */
  async #retry(batch: LogMessage[], first: Error): Promise<void> {
    const { log, sessionId, token } = this.#o;
    const started = Date.now();
    let error = first;
    for (let attempt = 0; ; attempt++) {
      const tooLong = Date.now() - started > Math.max(this.#o.leaseMs, 5000);
      if (!(error instanceof RedisConnectionError) || tooLong) {
        this.#failed = error;
        this.#pending.length = 0;
        this.#onFailure(error);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, reconnectDelay(attempt)));
      try {
        await log.append(sessionId, token, batch);
        return;
      } catch (again) {
        error = again as Error;
      }
    }
  }
}
