/**
 * `agentpipe worker`: BullMQ Workers on the sessions queue (`agentpipe:sessions`, up to
 * `concurrency` sessions at once) and the warm queue (`agentpipe:warm`), running each session on
 * its log (session-jobs.ts, run/session-run.ts), archiving idle ones (archiving.ts, sweeper.ts).
 * A worker killed mid-turn stops renewing its job locks and session leases; BullMQ's stalled-job
 * check moves its jobs back to the queue and another worker takes each session over from its log
 * (the cut prompt goes on there). The next worker started on the same machine stops the tools
 * it left running and removes its folder (work-dir.ts).
 *
 * Its states:
 *
 *   starting ──▶ running ──drain(grace)──▶ draining ──grace over──▶ closing ──▶ closed
 *                   └──────────close()──────────────────────────────────▲
 *
 * Draining takes no new job and no new prompt; the running prompts finish (after `grace` they are
 * interrupted); each session then gives its lease up and its job goes back to the queue, where
 * another worker takes it at once. Closing interrupts the running prompts. Every step of the
 * hand-back (last appends, leases, jobs, the queues' own shutdown) is bounded by `handBackMs`,
 * so a worker whose Redis is gone still exits within its grace plus that bound (issue 28 B14).
 *
 * Tuning (environment, milliseconds): AGENTPIPE_WORKER_LOCK_MS (BullMQ lockDuration, default
 * 30000), AGENTPIPE_WORKER_STALLED_MS (stalledInterval, default 15000), AGENTPIPE_LEASE_MS (the
 * session lease, default 30000), AGENTPIPE_SESSION_IDLE_MS (a session's run ends after this long
 * without input or output, default 30 minutes), AGENTPIPE_SWEEP_MS (how often the archive sweep
 * steps, default 60000), AGENTPIPE_HAND_BACK_MS (the hand-back bound, default 5000). A takeover
 * takes about lock + 2 × stalled.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Job, Processor, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { envCount, envMs } from '../../process/env-number.ts';
import { errorMessage } from '../../process/errors.ts';
import { bounded } from '../bounded.ts';
import { redactUrl, reconnectDelay } from '../connection.ts';
import { SessionLog } from '../log/index.ts';
import { FAILED_JOBS_KEPT, QUEUE, WARM_QUEUE } from '../jobs.ts';
import { Archiving, lastActivity } from './archiving.ts';
import { SessionJobs } from './session-jobs.ts';
import { sweepStep } from './sweeper.ts';
import { WorkDir } from './work-dir.ts';

/** Options of a worker process. */
export interface WorkerOptions {
  /** `redis://` URL. */
  redis: string;
  /** Sessions run at once. Default 1. */
  concurrency?: number;
  /** Diagnostics (stderr). */
  log: (line: string) => void;
  /** Key prefix of the session logs. Default `ap`. */
  prefix?: string;
  lockMs?: number;
  stalledMs?: number;
  leaseMs?: number;
  idleMs?: number;
  /** Where sessions are archived (shared by every worker); undefined: never archived. */
  archiveDir?: string;
  /** A session whose run ended is archived after this long without input or output. Default 1 hour. */
  archiveAfterMs?: number;
  /** How often the archive sweep steps (sweeper.ts). Default AGENTPIPE_SWEEP_MS, else 60 s. */
  sweepMs?: number;
  /**
   * Warm sessions held open at once waiting for a client, on top of `concurrency` (0: none). Default
   * AGENTPIPE_WORKER_WARM, else 2. Sessions clients took from them run on too (up to `concurrency` of them).
   */
  warm?: number;
  /** How long each step of handing the sessions back may take. Default AGENTPIPE_HAND_BACK_MS, else 5 s. */
  handBackMs?: number;
}

/** A running worker. */
export interface RunningWorker {
  id: string;
  /**
   * Stops taking jobs; running sessions are interrupted (their prompts get a result), their leases released and their
   * jobs handed back to the queue.
   */
  close(): Promise<void>;
  /**
   * Stops taking jobs; running sessions finish their prompts (interrupted after `graceMs`), then go back to the queue
   * with their leases released.
   */
  drain(graceMs: number): Promise<void>;
  /** Resolves when the worker failed for good (its error) or was closed (undefined). */
  done: Promise<Error | undefined>;
}

/** The states of a worker (see the module comment). */
export type WorkerStatus = 'starting' | 'running' | 'draining' | 'closing' | 'closed';

/** Starts a worker; throws a RedisConnectionError (one clear line) when Redis cannot be reached. */
export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const worker = new ClusterWorker(o);
  await worker.start();
  return {
    id: worker.id,
    done: worker.done,
    close: () => worker.close(),
    drain: (graceMs) => worker.drain(graceMs),
  };
}

class ClusterWorker {
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly done: Promise<Error | undefined>;
  readonly #o: WorkerOptions;
  readonly #log: SessionLog;
  readonly #closing = new AbortController();
  readonly #draining = new AbortController();
  readonly #handBackMs: number;
  #status: WorkerStatus = 'starting';
  #settle: (error: Error | undefined) => void = () => undefined;
  #connection?: Redis;
  #queue?: Queue;
  #workers: Worker[] = [];
  #workDir?: WorkDir;
  #sweeper?: NodeJS.Timeout;
  #sweeping?: Promise<void>;
  #closed?: Promise<void>;

  constructor(o: WorkerOptions) {
    this.#o = o;
    this.#log = new SessionLog({ redis: o.redis, prefix: o.prefix, autoPipelining: false });
    this.#handBackMs = o.handBackMs ?? envMs('AGENTPIPE_HAND_BACK_MS', 5000);
    this.done = new Promise((resolve) => (this.#settle = resolve));
  }

  #setStatus(status: WorkerStatus): void {
    this.#status = status;
  }

  async start(): Promise<void> {
    const o = this.#o;
    await this.#log.connect();
    await this.#log.warm();
    this.#workDir = WorkDir.create(o.log);
    const { Redis } = await import('ioredis');
    // BullMQ's own connection: reconnects forever (a worker outlives Redis restarts), never fails a blocking command.
    this.#connection = new Redis(o.redis, {
      maxRetriesPerRequest: null,
      retryStrategy: reconnectDelay,
      connectTimeout: 3000,
      connectionName: 'agentpipe-worker',
    });
    const { Queue: BullQueue } = await import('bullmq');
    const queue: Queue = new BullQueue(QUEUE.name, { connection: this.#connection, prefix: QUEUE.prefix });
    queue.on('error', () => undefined); // the workers' own error handler says it
    this.#queue = queue;
    const leaseMs = o.leaseMs ?? envMs('AGENTPIPE_LEASE_MS', 30_000);
    const archiving = new Archiving({
      log: this.#log,
      queue,
      worker: this.id,
      archiveDir: o.archiveDir,
      archiveAfterMs: o.archiveAfterMs ?? 3_600_000,
      leaseMs,
      print: o.log,
    });
    const concurrency = o.concurrency ?? 1;
    const warm = o.warm ?? envCount('AGENTPIPE_WORKER_WARM', 2);
    const sessions = new SessionJobs({
      log: this.#log,
      queue,
      archiving,
      worker: this.id,
      workDir: this.#workDir.path,
      leaseMs,
      idleMs: o.idleMs ?? envMs('AGENTPIPE_SESSION_IDLE_MS', 30 * 60_000),
      handBackMs: this.#handBackMs,
      archiveDir: o.archiveDir,
      warm,
      closing: this.#closing.signal,
      draining: this.#draining.signal,
      print: o.log,
      bounded: (step, what) => this.#bounded(step, what),
    });
    const processor = (job: Job, token?: string): Promise<string> =>
      job.name === 'archive' ? archiving.run(job, token) : sessions.process(job, token);
    this.#workers = await this.#queueWorkers(processor, concurrency, warm);
    this.#startSweep(archiving);
    this.#setStatus('running');
    o.log(
      `agentpipe worker ${this.id}: taking sessions from ${redactUrl(o.redis)} (queue ${QUEUE.prefix}:${QUEUE.name}, ` +
        `concurrency ${concurrency}, warm ${warm})`,
    );
  }

  /**
   * The BullMQ Workers of the sessions queue (`concurrency` slots) and of the warm queue (`warm` + `concurrency`: a
   * claimed warm session runs on there): leases, stalled jobs retried for ever, finished jobs not kept; ready.
   */
  async #queueWorkers(processor: Processor, concurrency: number, warm: number): Promise<Worker[]> {
    const o = this.#o;
    const { Worker: BullWorker } = await import('bullmq');
    const queueWorker = (q: { prefix: string; name: string }, slots: number): Worker =>
      new BullWorker(q.name, processor, {
        connection: this.#connection!,
        prefix: q.prefix,
        concurrency: slots,
        lockDuration: o.lockMs ?? envMs('AGENTPIPE_WORKER_LOCK_MS', 30_000),
        stalledInterval: o.stalledMs ?? envMs('AGENTPIPE_WORKER_STALLED_MS', 15_000),
        maxStalledCount: Number.MAX_SAFE_INTEGER,
        removeOnComplete: { count: 0 },
        removeOnFail: FAILED_JOBS_KEPT,
        name: this.id,
      });
    const workers = [
      queueWorker(QUEUE, concurrency),
      ...(warm > 0 ? [queueWorker(WARM_QUEUE, warm + concurrency)] : []),
    ];
    let lastError = '';
    for (const w of workers) {
      w.on('error', (error: Error) => {
        // Connection errors repeat while Redis is away: said once each.
        if (error.message !== lastError) o.log(`agentpipe worker: ${error.message}`);
        lastError = error.message;
      });
      w.on('failed', (job, error) => o.log(`agentpipe worker: job ${job?.id ?? '?'} failed: ${error.message}`));
    }
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    return workers;
  }

  /** The archive sweep: one step now and every sweepMs (one worker at a time steps, a page of sessions each). */
  #startSweep(archiving: Archiving): void {
    const o = this.#o;
    const sweepMs = o.sweepMs ?? envMs('AGENTPIPE_SWEEP_MS', 60_000);
    const sweep = (): void => {
      if (!o.archiveDir || this.#sweeping || this.#status !== 'running') return;
      this.#sweeping = sweepStep({
        redis: this.#connection!,
        log: this.#log,
        id: this.id,
        archiveAfterMs: o.archiveAfterMs ?? 3_600_000,
        everyMs: sweepMs,
        lastActivity: (sessionId) => lastActivity(this.#log, sessionId),
        archive: (sessionId) => archiving.schedule(sessionId),
      })
        .then(
          ({ queued }) => {
            for (const sessionId of queued)
              o.log(`agentpipe worker: sweep: session ${sessionId} is idle with no owner; its archive job is queued`);
          },
          (error: unknown) => o.log(`agentpipe worker: sweep: ${errorMessage(error)}`),
        )
        .finally(() => (this.#sweeping = undefined));
    };
    this.#sweeper = setInterval(sweep, sweepMs);
    this.#sweeper.unref();
    sweep();
  }

  /** Stops taking jobs and interrupts the running prompts; resolves once closed. */
  close(): Promise<void> {
    this.#setStatus('closing');
    this.#closing.abort();
    return this.#shutDown();
  }

  /** Stops taking jobs and new prompts; the running ones finish, interrupted after `graceMs`; resolves once closed. */
  async drain(graceMs: number): Promise<void> {
    this.#setStatus('draining');
    this.#draining.abort();
    const grace = setTimeout(() => {
      this.#o.log(`agentpipe worker: grace period of ${graceMs} ms over: interrupting the prompts still running`);
      this.#setStatus('closing');
      this.#closing.abort();
    }, graceMs);
    grace.unref();
    try {
      await this.#shutDown();
    } finally {
      clearTimeout(grace);
    }
  }

  /** Waits for the runs (each bounded), then closes the queues and connections, each step bounded. */
  #shutDown(): Promise<void> {
    return (this.#closed ??= (async () => {
      clearInterval(this.#sweeper);
      await this.#bounded(this.#sweeping ?? Promise.resolve(), 'the archive sweep');
      // BullMQ waits for the processors (each run hands its session back within the bound) and its own commands.
      const stopped = await this.#bounded(
        Promise.all(this.#workers.map((w) => w.close())),
        'stopping the queues (Redis unreachable?)',
      );
      if (!stopped) await this.#bounded(Promise.all(this.#workers.map((w) => w.close(true))), 'closing the queues');
      await this.#bounded(this.#queue?.close() ?? Promise.resolve(), 'closing the queue');
      await this.#bounded(this.#log.close(), 'closing the session logs');
      this.#connection?.disconnect();
      this.#workDir?.close();
      this.#setStatus('closed');
      this.#settle(undefined);
    })());
  }

  /** `step`, or undefined (said) when it did not settle within the hand-back bound. */
  #bounded<T>(step: Promise<T>, what: string): Promise<T | undefined> {
    return bounded(step, this.#handBackMs, () =>
      this.#o.log(`agentpipe worker: ${what}: not done within ${this.#handBackMs} ms; going on without it`),
    );
  }
}
