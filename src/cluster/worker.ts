/**
 * `agentpipe worker`: a BullMQ Worker on the sessions queue (`agentpipe:sessions`), running up to
 * `concurrency` sessions at once, each on its log (session-run.ts). A worker killed mid-turn
 * stops renewing its BullMQ job lock and its session leases; BullMQ's stalled-job check moves its
 * jobs back to the queue and another worker takes each session over from its log.
 *
 * Tuning (environment, milliseconds): AGENTPIPE_WORKER_LOCK_MS (BullMQ lockDuration, default
 * 30000), AGENTPIPE_WORKER_STALLED_MS (stalledInterval, default 15000), AGENTPIPE_LEASE_MS (the
 * session lease, default 30000), AGENTPIPE_SESSION_IDLE_MS (a session's run ends after this long
 * without input or output, default 30 minutes), AGENTPIPE_SWEEP_MS (how often the archive sweep
 * steps, default 60000). A takeover takes about lock + 2 × stalled.
 *
 * Bounded Redis: a session whose run ended is archived once it has been idle for `archiveAfterMs`
 * (an `archive` job delayed on the same queue): its log is written to `<archiveDir>/<id>.jsonl`
 * (a transcript, as single-process sessions write) and its keys are deleted. A session asked for
 * again is restored from that file by the worker that runs it. `archiveDir` must be the same
 * folder (shared storage) for every worker. A session whose worker died before it queued that job
 * is found by the archive sweep (sweeper.ts): every `sweepMs` one worker looks at a page of
 * session logs and queues the archive job of each one with no owner that has been idle that long.
 *
 * Warm sessions: a second BullMQ Worker takes jobs of the warm queue (`agentpipe:warm`, jobs.ts):
 * each is a session a front end queued ahead of its next connection. It is opened and waits on
 * its inbox, and says so (`markReady`); the front end's next connection takes it (its first inbox
 * line claims it), so its first prompt finds the session running, and it runs on here. A worker
 * holds at most `warm` (AGENTPIPE_WORKER_WARM, default 2, 0: none) unclaimed warm sessions, on top
 * of `concurrency`; a claimed one no longer counts (the warm Worker's concurrency, `warm` +
 * `concurrency`, bounds them). One no client took within its `warmMs` ends and is discarded
 * (nothing of it stays in Redis); one claimed as it ended, or whose run ended with input waiting,
 * goes on as a job of the sessions queue. A worker killed holding warm jobs: BullMQ's stalled-job
 * check puts them back on the warm queue, and the next run of a claimed one takes it over as usual.
 *
 * Draining (`drain(graceMs)`, SIGTERM): the worker takes no new job, each session finishes its
 * running prompts (no new prompt is taken), releases its lease and goes back to the queue, where
 * another worker takes it at once; after `graceMs` the prompts still running are interrupted.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Job, Queue, Worker } from 'bullmq';
import { envCount, envMs } from '../process/env-number.ts';
import { redactUrl, reconnectDelay } from './connection.ts';
import { ArchiveRefusedError, SessionLog } from './log/index.ts';
import {
  archiveJobId,
  FAILED_JOBS_KEPT,
  parseArchiveJob,
  parseSessionJob,
  QUEUE,
  sessionJobOptions,
  WARM_QUEUE,
  type SessionJob,
} from './jobs.ts';
import { archiveFile, runClusterSession } from './session-run.ts';
import { sweepStep } from './sweeper.ts';

/**
 * How long a warm session's ready mark outlives a worker that died holding it (a claim or the discard deletes it
 * otherwise): its job is taken again from the warm queue meanwhile, however long that waits for a free warm slot.
 */
const READY_TTL_MS = 24 * 3_600_000;
/** A warm job a worker cannot hold now (its warm sessions are all open and unclaimed) is taken again after this. */
const WARM_RETRY_MS = 250;

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

/** Starts a worker; throws a RedisConnectionError (one clear line) when Redis cannot be reached. */
export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const log = new SessionLog({ redis: o.redis, prefix: o.prefix, autoPipelining: false });
  await log.connect();
  await log.warm();
  // BullMQ's own connection: reconnects forever (a worker outlives Redis restarts), never fails a blocking command.
  const { Redis } = await import('ioredis');
  const connection = new Redis(o.redis, {
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelay,
    connectTimeout: 3000,
    connectionName: 'agentpipe-worker',
  });
  const lockMs = o.lockMs ?? envMs('AGENTPIPE_WORKER_LOCK_MS', 30_000);
  const stalledMs = o.stalledMs ?? envMs('AGENTPIPE_WORKER_STALLED_MS', 15_000);
  const leaseMs = o.leaseMs ?? envMs('AGENTPIPE_LEASE_MS', 30_000);
  const idleMs = o.idleMs ?? envMs('AGENTPIPE_SESSION_IDLE_MS', 30 * 60_000);
  const archiveAfterMs = o.archiveAfterMs ?? 3_600_000;
  const closing = new AbortController();
  const draining = new AbortController();
  const { Worker: BullWorker, Queue: BullQueue, WaitingError, DelayedError } = await import('bullmq');
  const queue: Queue = new BullQueue(QUEUE.name, { connection, prefix: QUEUE.prefix });
  queue.on('error', () => undefined); // the worker's own error handler says it

  /** Queues the session's archive job, due when it will have been idle for archiveAfterMs (a no-op if one waits). */
  const scheduleArchive = async (sessionId: string): Promise<void> => {
    if (!o.archiveDir) return;
    const idle = Date.now() - (await lastActivity(log, sessionId));
    await queue.add(
      'archive',
      { sessionId },
      {
        jobId: archiveJobId(sessionId),
        delay: Math.max(0, archiveAfterMs - idle),
        removeOnComplete: true,
        removeOnFail: FAILED_JOBS_KEPT,
      },
    );
  };

  /** Archives an idle session whose run ended (a session running or with waiting input is left alone). */
  const archive = async (job: Job, token?: string): Promise<string> => {
    const { sessionId } = parseArchiveJob(job.data);
    if (!o.archiveDir && token) {
      // Queued by a worker that archives (this one runs with --no-archive): it waits for one of those.
      await job.moveToDelayed(Date.now() + archiveAfterMs, token);
      throw new DelayedError();
    }
    if (!o.archiveDir || !(await log.exists(sessionId))) return 'nothing to archive';
    const due = (await lastActivity(log, sessionId)) + archiveAfterMs;
    if (due > Date.now() && token) {
      await job.moveToDelayed(due, token);
      throw new DelayedError();
    }
    const owner = `${id}:archive:${randomUUID()}`;
    if (!(await log.acquire(sessionId, owner, leaseMs))) return 'running on a worker: archived after its run';
    try {
      const file = archiveFile(o.archiveDir, sessionId);
      const lines = await log.archive(sessionId, file, owner);
      o.log(`agentpipe worker: session ${sessionId}: archived to ${file} (${lines} lines); its Redis keys are deleted`);
      return 'archived';
    } catch (error) {
      await log.release(sessionId, owner).catch(() => undefined);
      // Input came in for it (the front end that took it starts its run, which schedules the next archive).
      if (!(error instanceof ArchiveRefusedError)) throw error;
      return error.message;
    }
  };
  // The archive sweep: one step now and every sweepMs (one worker at a time steps, a page of sessions each).
  const sweepMs = o.sweepMs ?? envMs('AGENTPIPE_SWEEP_MS', 60_000);
  let sweeping: Promise<void> | undefined;
  const sweep = (): void => {
    if (!o.archiveDir || sweeping || closing.signal.aborted || draining.signal.aborted) return;
    sweeping = sweepStep({
      redis: connection,
      log,
      id,
      archiveAfterMs,
      everyMs: sweepMs,
      lastActivity: (sessionId) => lastActivity(log, sessionId),
      archive: scheduleArchive,
    })
      .then(
        ({ queued }) => {
          for (const sessionId of queued)
            o.log(`agentpipe worker: sweep: session ${sessionId} is idle with no owner; its archive job is queued`);
        },
        (error: unknown) => o.log(`agentpipe worker: sweep: ${(error as Error).message}`),
      )
      .finally(() => (sweeping = undefined));
  };
  const sweeper = setInterval(sweep, sweepMs);
  sweeper.unref();

  let settle: (error: Error | undefined) => void = () => undefined;
  const done = new Promise<Error | undefined>((resolve) => (settle = resolve));

  /** Runs a warm session as a job of the sessions queue (a no-op while one waits or runs). */
  const handOver = async (data: SessionJob): Promise<void> => {
    const { sessionId, options, stream } = data;
    o.log(`agentpipe worker: session ${sessionId}: input came in as its warm run ended; queued to run it`);
    await queue.add('session', { sessionId, options, stream }, sessionJobOptions(sessionId));
  };

  const concurrency = o.concurrency ?? 1;
  const warmCount = o.warm ?? envCount('AGENTPIPE_WORKER_WARM', 2);
  // Warm sessions open here that no client claimed yet (at most warmCount: see the processor).
  let unclaimed = 0;

  /** Runs a session job's session (of either queue) until its run ends; its outcome. */
  const runSession = async (job: Job, data: SessionJob, onClaimed: () => void): Promise<string> => {
    const owner = `${id}:${job.id ?? '?'}:${randomUUID()}`;
    const { sessionId } = data;
    o.log(`agentpipe worker: session ${sessionId}: started (attempt ${job.attemptsStarted}, owner ${owner})`);
    const warm = job.queueName === WARM_QUEUE.name;
    const warmMs = warm ? data.warmMs : undefined;
    let outcome;
    for (let cursor = await log.cursor(sessionId); ;) {
      const inputBefore = await log.lastInputId(sessionId);
      outcome = await runClusterSession({
        log,
        job: { ...data, warmMs },
        token: owner,
        leaseMs,
        idleMs,
        signal: closing.signal,
        drain: draining.signal,
        archiveDir: o.archiveDir,
        print: o.log,
        onReady: warmMs
          ? () =>
              void log
                .markReady(sessionId, READY_TTL_MS)
                .catch((error: unknown) =>
                  o.log(`agentpipe worker: session ${sessionId}: cannot say it is warm: ${(error as Error).message}`),
                )
          : undefined,
        onClaimed,
      });
      if (outcome === 'unclaimed') {
        // Deleted unless a client claimed it as its run was ending (an inbox line no run read): that client's
        // session then runs as a job of the sessions queue.
        if (await log.discard(sessionId, owner)) break;
        outcome = 'ended';
        await handOver(data);
        break;
      }
      // Input that came in while the run was ending (after its last read): it runs again. Not for
      // input that was there before the run and that it took none of (a run whose options cannot
      // open a session would loop), but for input that arrived during it, even when the run read
      // nothing: a takeover run that only finishes the dead owner's turn leaves a reconnected
      // client's `end_input` unread, and a front end that asks for a run then finds this job still
      // active and leaves it to this one. A warm session goes on as a job of the sessions queue.
      if (outcome !== 'ended' || !(await log.hasPendingInput(sessionId))) break;
      if (warm) {
        await handOver(data);
        break;
      }
      const moved = await log.cursor(sessionId);
      if (moved === cursor && (await log.lastInputId(sessionId)) === inputBefore) break;
      cursor = moved;
    }
    o.log(`agentpipe worker: session ${sessionId}: ${outcome}`);
    if (outcome === 'ended') await scheduleArchive(sessionId);
    return outcome;
  };

  const processor = async (job: Job, token?: string): Promise<string> => {
    if (job.name === 'archive') return archive(job, token);
    let data;
    try {
      data = parseSessionJob(job.data);
    } catch (error) {
      o.log(`agentpipe worker: job ${job.id ?? '?'} refused: ${(error as Error).message}`);
      throw error;
    }
    // A worker holds at most warmCount warm sessions no client claimed yet: another waits (for this worker or
    // another one). A claimed one runs on without counting (the warm queue's concurrency leaves room for
    // `concurrency` of them).
    const warm = job.queueName === WARM_QUEUE.name;
    if (warm && unclaimed >= warmCount && token) {
      await job.moveToDelayed(Date.now() + WARM_RETRY_MS, token);
      throw new DelayedError();
    }
    let waiting = warm;
    if (waiting) unclaimed++;
    const onClaimed = (): void => {
      if (waiting) unclaimed--;
      waiting = false;
    };
    let outcome;
    try {
      outcome = await runSession(job, data, onClaimed);
    } finally {
      onClaimed();
    }
    if (outcome === 'stopped' && token) {
      // This worker is closing: the session goes back to the queue for another worker.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    return outcome;
  };

  /** A BullMQ Worker of one of our queues: leases, stalled jobs retried for ever, finished jobs not kept. */
  const queueWorker = (queue: { prefix: string; name: string }, slots: number): Worker =>
    new BullWorker(queue.name, processor, {
      connection,
      prefix: queue.prefix,
      concurrency: slots,
      lockDuration: lockMs,
      stalledInterval: stalledMs,
      maxStalledCount: Number.MAX_SAFE_INTEGER,
      removeOnComplete: { count: 0 },
      removeOnFail: FAILED_JOBS_KEPT,
      name: id,
    });
  const worker = queueWorker(QUEUE, concurrency);
  const warmWorker = warmCount > 0 ? queueWorker(WARM_QUEUE, warmCount + concurrency) : undefined;
  let lastError = '';
  for (const w of [worker, warmWorker]) {
    w?.on('error', (error: Error) => {
      // Connection errors repeat while Redis is away: said once each.
      if (error.message !== lastError) o.log(`agentpipe worker: ${error.message}`);
      lastError = error.message;
    });
    w?.on('failed', (job, error) => o.log(`agentpipe worker: job ${job?.id ?? '?'} failed: ${error.message}`));
  }
  await Promise.all([worker.waitUntilReady(), warmWorker?.waitUntilReady()]);
  o.log(
    `agentpipe worker ${id}: taking sessions from ${redactUrl(o.redis)} (queue ${QUEUE.prefix}:${QUEUE.name}, ` +
      `concurrency ${concurrency}, warm ${warmCount})`,
  );

  sweep();

  let closed: Promise<void> | undefined;
  const shutDown = (): Promise<void> =>
    (closed ??= (async () => {
      clearInterval(sweeper);
      await sweeping;
      await Promise.all([worker.close(), warmWorker?.close()]);
      await queue.close();
      await log.close();
      connection.disconnect();
      settle(undefined);
    })());
  return {
    id,
    done,
    close() {
      closing.abort();
      return shutDown();
    },
    async drain(graceMs) {
      draining.abort();
      const grace = setTimeout(() => {
        o.log(`agentpipe worker: grace period of ${graceMs} ms over: interrupting the prompts still running`);
        closing.abort();
      }, graceMs);
      grace.unref();
      try {
        await shutDown();
      } finally {
        clearTimeout(grace);
      }
    },
  };
}

/** When the session last had input or output (ms since the epoch, from the stream ids). */
async function lastActivity(log: SessionLog, sessionId: string): Promise<number> {
  const [out, input] = await Promise.all([log.lastId(sessionId), log.lastInputId(sessionId)]);
  return Math.max(Number(out.split('-')[0]), Number(input.split('-')[0]));
}
