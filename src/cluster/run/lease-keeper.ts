/**
 * The lease of a session run, kept for as long as the run acts, as a state machine:
 *
 *   held ──renewal fails (connection)──▶ unconfirmed ──renewal lands──▶ held
 *     │                                       │
 *     │ FencedError                           │ no renewal landed for `stopAfter` (3/4 of the lease)
 *     ▼                                       ▼
 *   lost ◀────────────────────────────────────┘            held ──release()──▶ released
 *
 * A renewal (or any fenced append: they extend the lease too) that lands tells the keeper when it
 * was sent: the lease then holds until at least that moment plus the lease length, whatever the
 * server's clock says. The race this keeper exists for: Redis unreachable for longer than the
 * lease, the lease expires, another worker takes the session over, while this run's tools go on
 * (issue 28 B1). So the run is lost, and its tools' process groups are killed at once
 * (`killAtOnce`), a quarter of a lease BEFORE the lease can expire; nothing is asked of the model
 * or started after that. A Redis restart shorter than half the lease costs nothing: the lease was
 * kept with its absolute expiry in the append-only file, and the next renewal lands.
 */
import { AgentpipeError } from '../../process/errors.ts';
import { monotonicMs } from '../../process/clock.ts';
import { killAtOnce } from '../../process/run.ts';
import { errorMessage } from '../../process/errors.ts';
import { FencedError } from '../log/index.ts';
import { RedisConnectionError } from '../connection.ts';
import { retryRedis } from '../redis-retry.ts';

/** The states of a lease (see the module comment). */
export type LeaseState = 'held' | 'unconfirmed' | 'lost' | 'released';

/** Why a run may not act any more: its lease is lost (or was given up). Stops its tools' groups at once. */
export class LeaseLostError extends AgentpipeError {
  static override readonly errorName: string = 'LeaseLostError';
  /** `fenced`: another owner took it (or it expired); `unconfirmed`: no renewal landed in time. */
  readonly reason: 'fenced' | 'unconfirmed' | 'released';
  constructor(message: string, reason: LeaseLostError['reason']) {
    super(message);
    this.reason = reason;
  }
}

/** What the keeper needs of the log. */
export interface LeaseOps {
  /** Extends the lease; a FencedError when it is not held, a RedisConnectionError when Redis cannot be reached. */
  renew(): Promise<void>;
  /** Gives it up; true if it was held. */
  release(): Promise<boolean>;
}

/** Options of a keeper. */
export interface LeaseKeeperOptions {
  sessionId: string;
  leaseMs: number;
  ops: LeaseOps;
  /** Called once, when the lease is lost: stop acting now. */
  onLost: (error: LeaseLostError) => void;
  print: (line: string) => void;
  /** The clock (monotonic ms); injectable for tests. */
  now?: () => number;
}

export class LeaseKeeper {
  readonly #o: LeaseKeeperOptions;
  readonly #now: () => number;
  #state: LeaseState = 'held';
  /** When the last renewal that landed was sent. */
  #confirmedAt: number;
  #lost?: LeaseLostError;
  #renewTimer?: NodeJS.Timeout;
  #deadline?: NodeJS.Timeout;

  /** `acquiredAt`: when the acquire that took the lease was sent (the keeper's clock). */
  constructor(o: LeaseKeeperOptions, acquiredAt: number) {
    this.#o = o;
    this.#now = o.now ?? monotonicMs;
    this.#confirmedAt = acquiredAt;
  }

  /** Renewals every quarter of a lease; the run is lost when none landed for `stopAfterMs`. */
  start(): void {
    const every = Math.max(20, Math.floor(this.#o.leaseMs / 4));
    this.#renewTimer = setInterval(() => void this.#renew(), every);
    this.#renewTimer.unref();
    this.#arm();
  }

  get state(): LeaseState {
    return this.#state;
  }

  /** The error that lost it (undefined while held). */
  get lostError(): LeaseLostError | undefined {
    return this.#lost;
  }

  /** How long after the last confirmed renewal the run is lost (its tools stopped): 3/4 of the lease. */
  get stopAfterMs(): number {
    return Math.floor((this.#o.leaseMs * 3) / 4);
  }

  /** A fenced write sent at `sentAt` landed: the lease holds until at least `sentAt + leaseMs`. */
  confirm(sentAt: number): void {
    if (this.#state !== 'held' && this.#state !== 'unconfirmed') return;
    if (sentAt > this.#confirmedAt) this.#confirmedAt = sentAt;
    this.#state = 'held';
    this.#arm();
  }

  /** Throws the LeaseLostError when the run may not act (lost, or past its deadline: lost now). */
  assertHeld(): void {
    if (this.#state !== 'lost' && this.#now() - this.#confirmedAt >= this.stopAfterMs) this.#unconfirmed();
    if (this.#lost) throw this.#lost;
  }

  /** The fence, checked now: a renewal that lands (retried through a lost connection until the deadline). */
  async check(signal: AbortSignal): Promise<void> {
    this.assertHeld();
    const sent = this.#now();
    try {
      await retryRedis(() => this.#o.ops.renew(), { while: () => this.#state !== 'lost', signal });
      this.confirm(sent);
    } catch (error) {
      if (FencedError.isInstance(error)) this.#lose(new LeaseLostError(error.message, 'fenced'));
      else if (!RedisConnectionError.isInstance(error)) throw error;
    }
    this.assertHeld();
  }

  /** A fenced write was refused: another owner has the lease (or it expired). */
  fence(error: FencedError): void {
    this.#lose(new LeaseLostError(error.message, 'fenced'));
  }

  /** Stops renewing (the run is over). */
  stop(): void {
    clearInterval(this.#renewTimer);
    clearTimeout(this.#deadline);
  }

  /** Gives the lease up (unless lost to another owner), trying for at most `boundMs`; never throws. */
  async release(boundMs: number): Promise<void> {
    this.stop();
    if (this.#lost?.reason === 'fenced') return;
    this.#state = 'released';
    this.#lost ??= new LeaseLostError(`session ${this.#o.sessionId}: the run gave its lease up`, 'released');
    try {
      await retryRedis(() => this.#o.ops.release(), { forMs: boundMs });
    } catch (error) {
      this.#o.print(
        `agentpipe worker: session ${this.#o.sessionId}: cannot release its lease (it expires by itself): ` +
          `${errorMessage(error)}`,
      );
    }
  }

  async #renew(): Promise<void> {
    if (this.#state === 'lost' || this.#state === 'released') return;
    const sent = this.#now();
    try {
      await this.#o.ops.renew();
      this.confirm(sent);
    } catch (error) {
      if (FencedError.isInstance(error)) return this.#lose(new LeaseLostError(error.message, 'fenced'));
      if (this.#state === 'held')
        this.#o.print(
          `agentpipe worker: session ${this.#o.sessionId}: lease renewal failed (retrying; its tools are stopped ` +
            `if none lands within ${this.stopAfterMs} ms of the last): ${errorMessage(error)}`,
        );
      if (this.#state === 'held') this.#state = 'unconfirmed';
    }
  }

  /** The deadline: `stopAfterMs` after the last confirmed renewal. */
  #arm(): void {
    clearTimeout(this.#deadline);
    const left = this.#confirmedAt + this.stopAfterMs - this.#now();
    this.#deadline = setTimeout(() => this.#unconfirmed(), Math.max(0, left));
    this.#deadline.unref();
  }

  #unconfirmed(): void {
    if (this.#state === 'lost' || this.#state === 'released') return;
    if (this.#now() - this.#confirmedAt < this.stopAfterMs) return this.#arm();
    this.#lose(
      new LeaseLostError(
        `session ${this.#o.sessionId}: no lease renewal landed for ${this.stopAfterMs} ms (Redis unreachable?): ` +
          `this worker stops acting before its lease of ${this.#o.leaseMs} ms can expire`,
        'unconfirmed',
      ),
    );
  }

  #lose(error: LeaseLostError): void {
    if (this.#state === 'lost') return;
    this.#state = 'lost';
    this.#lost = killAtOnce(error);
    this.stop();
    this.#o.onLost(this.#lost);
  }
}
