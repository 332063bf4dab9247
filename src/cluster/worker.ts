/**
 * `agentpipe worker`: a BullMQ Worker on the sessions queue (`agentpipe:sessions`), running up to
 * `concurrency` sessions at once, each on its log (session-run.ts). A worker killed mid-turn
 * stops renewing its BullMQ job lock and its session leases; BullMQ's stalled-job check moves its
 * jobs back to the queue and another worker takes each session over from its log.
 *
 * Tuning (environment, milliseconds): AGENTPIPE_WORKER_LOCK_MS (BullMQ lockDuration, default
 * 30000), AGENTPIPE_WORKER_STALLED_MS (stalledInterval, default 15000), AGENTPIPE_LEASE_MS (the
 * session lease, default 30000), AGENTPIPE_SESSION_IDLE_MS (a session's run ends after this long
 * without input or output, default 30 minutes). A takeover takes about lock + 2 × stalled.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Job, Worker } from 'bullmq';
import { envNumber } from '../process/env-number.ts';
import { redactUrl, reconnectDelay } from './connection.ts';
import { SessionLog } from './redis-log.ts';
import { parseSessionJob, QUEUE } from './jobs.ts';
import { runClusterSession } from './session-run.ts';

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
}

/** A running worker. */
export interface RunningWorker {
  id: string;
  /** Stops taking jobs; running sessions are interrupted (their prompts get a result), their leases released and their jobs handed back to the queue. */
  close(): Promise<void>;
  /** Resolves when the worker failed for good (its error) or was closed (undefined). */
  done: Promise<Error | undefined>;
}

/** Starts a worker; throws a RedisConnectionError (one clear line) when Redis cannot be reached. */
export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const log = new SessionLog({ redis: o.redis, prefix: o.prefix });
  await log.connect();
  // BullMQ's own connection: reconnects forever (a worker outlives Redis restarts), never fails a blocking command.
  const { Redis } = await import('ioredis');
  const connection = new Redis(o.redis, {
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelay,
    connectTimeout: 3000,
    connectionName: 'agentpipe-worker',
  });
  const lockMs = o.lockMs ?? envNumber('AGENTPIPE_WORKER_LOCK_MS', 30_000);
  const stalledMs = o.stalledMs ?? envNumber('AGENTPIPE_WORKER_STALLED_MS', 15_000);
  const leaseMs = o.leaseMs ?? envNumber('AGENTPIPE_LEASE_MS', 30_000);
  const idleMs = o.idleMs ?? envNumber('AGENTPIPE_SESSION_IDLE_MS', 30 * 60_000);
  const closing = new AbortController();
  const { Worker: BullWorker, WaitingError } = await import('bullmq');
  let settle: (error: Error | undefined) => void = () => undefined;
  const done = new Promise<Error | undefined>((resolve) => (settle = resolve));

  const processor = async (job: Job, token?: string): Promise<string> => {
    let data;
    try {
      data = parseSessionJob(job.data);
    } catch (error) {
      o.log(`agentpipe worker: job ${job.id ?? '?'} refused: ${(error as Error).message}`);
      throw error;
    }
    const owner = `${id}:${job.id ?? '?'}:${randomUUID()}`;
    o.log(`agentpipe worker: session ${data.sessionId}: started (attempt ${job.attemptsStarted}, owner ${owner})`);
    const outcome = await runClusterSession({
      log,
      job: data,
      token: owner,
      leaseMs,
      idleMs,
      signal: closing.signal,
      print: o.log,
    });
    o.log(`agentpipe worker: session ${data.sessionId}: ${outcome}`);
    if (outcome === 'stopped' && token) {
      // This worker is closing: the session goes back to the queue for another worker.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    return outcome;
  };

  const worker: Worker = new BullWorker(QUEUE.name, processor, {
    connection,
    prefix: QUEUE.prefix,
    concurrency: o.concurrency ?? 1,
    lockDuration: lockMs,
    stalledInterval: stalledMs,
    maxStalledCount: Number.MAX_SAFE_INTEGER,
    removeOnComplete: { count: 0 },
    removeOnFail: { age: 24 * 3600 },
    name: id,
  });
  let lastError = '';
  worker.on('error', (error: Error) => {
    // Connection errors repeat while Redis is away: said once each.
    if (error.message !== lastError) o.log(`agentpipe worker: ${error.message}`);
    lastError = error.message;
  });
  worker.on('failed', (job, error) => o.log(`agentpipe worker: job ${job?.id ?? '?'} failed: ${error.message}`));
  await worker.waitUntilReady();
  o.log(
    `agentpipe worker ${id}: taking sessions from ${redactUrl(o.redis)} (queue ${QUEUE.prefix}:${QUEUE.name}, concurrency ${o.concurrency ?? 1})`,
  );

  let closed: Promise<void> | undefined;
  return {
    id,
    done,
    close() {
      closed ??= (async () => {
        closing.abort();
        await worker.close();
        await log.close();
        connection.disconnect();
        settle(undefined);
      })();
      return closed;
    },
  };
}
