/**
 * A front end's warm sessions: `size` sessions kept open on the workers ahead of its next new
 * connections (jobs of the warm queue, see worker/session-jobs.ts). Each one moves through
 *
 *   queued ──worker says ready──▶ ready ──a connection takes it──▶ taken
 *      └─────────────┴──────────dropped (its warm time nearly over, a failure, the pool closing)
 *
 * A taken session's replacement is queued once the answer to its connection's first prompt
 * started (REFILL_AFTER_MS at the latest), so opening it does not slow that answer down. A ready
 * one is dropped well before its worker would end it (WARM_MARGIN_MS): a claim after that would
 * find it handed over to the sessions queue (or gone), a slower start.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../../process/errors.ts';
import type { SessionJob } from '../jobs.ts';
import type { ClusterClient } from '../session-client.ts';

/** A ready warm session is dropped from the pool this long before its worker would end it (at least half its time). */
const WARM_MARGIN_MS = 5000;
/** A warm session a connection took is replaced at the latest this long after. */
const REFILL_AFTER_MS = 1000;
/** After a failure to queue a warm session, the pool waits this long before it tries again. */
const WARM_RETRY_MS = 5000;

/** The states of a warm session (see the module comment). */
type WarmStatus = 'queued' | 'ready' | 'taken' | 'dropped';

interface WarmSession {
  id: string;
  status: WarmStatus;
  stop: AbortController;
  timer?: NodeJS.Timeout;
}

/** What the pool needs. */
export interface WarmPoolOptions {
  client: ClusterClient;
  /** Sessions kept ready (0: none). */
  size: number;
  /** How long a warm session waits for a connection before its worker ends it. */
  warmMs: number;
  /** The job of a session (the front end's options). */
  job: (sessionId: string) => SessionJob;
  print: (line: string) => void;
}

export class WarmPool {
  readonly #o: WarmPoolOptions;
  /** Sessions queued or ready, oldest first. */
  readonly #pool: WarmSession[] = [];
  /** The refills owed for sessions connections took, by session id. */
  readonly #refills = new Map<string, () => void>();
  #closing = false;

  constructor(o: WarmPoolOptions) {
    this.#o = o;
  }

  /** Queues warm sessions until the pool is full (not once it is closing). */
  fill(): void {
    while (!this.#closing && this.#pool.length < this.#o.size) {
      const warm: WarmSession = { id: randomUUID(), status: 'queued', stop: new AbortController() };
      this.#pool.push(warm);
      void this.#prepare(warm);
    }
  }

  /** A ready session for a new connection, out of the pool, if there is one (its refill is owed from now on). */
  take(): string | undefined {
    const warm = this.#pool.find((w) => w.status === 'ready');
    if (!warm) return undefined;
    this.#drop(warm, 'taken', false);
    const refill = (): void => {
      clearTimeout(timer);
      if (this.#refills.delete(warm.id)) this.fill();
    };
    const timer = setTimeout(refill, REFILL_AFTER_MS);
    timer.unref();
    this.#refills.set(warm.id, refill);
    return warm.id;
  }

  /** The refill owed for a session a connection took (call it once the answer started), if any. */
  refillFor(sessionId: string): (() => void) | undefined {
    return this.#refills.get(sessionId);
  }

  /** Not refilled any more; sessions no worker took yet are removed, the ready ones end on their workers. */
  async close(): Promise<void> {
    this.#closing = true;
    const pool = this.#pool.splice(0);
    for (const warm of pool) {
      clearTimeout(warm.timer);
      warm.stop.abort();
    }
    await Promise.allSettled(pool.filter((w) => w.status === 'queued').map((w) => this.#o.client.removeWarm(w.id)));
  }

  /** Queues a warm session's job and waits (as long as it takes a worker) until it is ready. */
  async #prepare(warm: WarmSession): Promise<void> {
    const { warmMs } = this.#o;
    try {
      await this.#o.client.addWarm({ ...this.#o.job(warm.id), warmMs });
      while (!warm.stop.signal.aborted) {
        if (!(await this.#o.client.sessions.waitReady(warm.id, 60_000, warm.stop.signal))) continue;
        if (warm.stop.signal.aborted) return;
        warm.status = 'ready';
        this.#o.print(`agentpipe serve: warm session ${warm.id} is ready`);
        warm.timer = setTimeout(() => this.#drop(warm, 'dropped'), Math.max(warmMs / 2, warmMs - WARM_MARGIN_MS));
        warm.timer.unref();
        return;
      }
    } catch (error) {
      if (warm.stop.signal.aborted) return;
      this.#o.print(`agentpipe serve: cannot keep a warm session: ${errorMessage(error)}`);
      warm.timer = setTimeout(() => this.#drop(warm, 'dropped'), WARM_RETRY_MS);
      warm.timer.unref();
    }
  }

  /** Takes a session out of the pool (and queues its replacement unless a connection took it). */
  #drop(warm: WarmSession, status: 'taken' | 'dropped', refill = true): void {
    clearTimeout(warm.timer);
    warm.status = status;
    warm.stop.abort();
    const at = this.#pool.indexOf(warm);
    if (at >= 0) this.#pool.splice(at, 1);
    if (refill) this.fill();
  }
}
