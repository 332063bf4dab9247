/**
 * A client of the cluster that talks to Redis itself, as a front end does (front-end.ts) but
 * without a WebSocket in between: the library's `query({options: {cluster}})` and the viewer of
 * `view --redis` use it. It hands a session to the workers (a job on the sessions queue), adds
 * input lines to the session's inbox and reads the session's log (`sessions`, a SessionLog).
 *
 * Starting a session again right after its previous run ended is handled here: while the old
 * run's job is still finishing (its end marker is in the log, BullMQ has not removed the job
 * yet), adding a job with the same id would be a no-op, so `start` waits for that job to go and
 * adds it again.
 */
import { sleep } from '../process/retry.ts';
import { errorMessage } from '../process/errors.ts';
import { isRecord } from '../process/guards.ts';
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { reconnectDelay, redactUrl, RedisConnectionError } from './connection.ts';
import { retryRedis } from './redis-retry.ts';
import { SessionLog, type LogEntry } from './log/index.ts';
import { QUEUE, sessionJobOptions, WARM_QUEUE, type SessionJob } from './jobs.ts';

/** Options of a cluster client. */
export interface ClusterClientOptions {
  /** `redis://` URL of the cluster's Redis. */
  redis: string;
  /** Diagnostics. */
  log?: (line: string) => void;
}

/** A line that claims a warm session (a session ignores it), unique per claim so that a retried claim knows its own. */
export const claimLine = (): string => JSON.stringify({ type: 'keep_alive', claim: randomUUID() });
/**
 * How long a warm session's pooled mark outlives a front end that died with it in its pool (a claim or the session's
 * discard deletes it otherwise): its job may wait that long for a worker's free warm slot.
 */
const POOLED_TTL_MS = 24 * 3_600_000;

/** Job states in which a worker will (still) run the session's next input. */
const PENDING = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

/** A connection to the cluster's Redis: the session logs and the sessions queue. */
export class ClusterClient {
  /** The session logs (read, follow, inbox). */
  readonly sessions: SessionLog;
  /** Where it points, without credentials. */
  readonly where: string;
  readonly #queue: Queue;
  /** The warm sessions' queue (opened by the first `addWarm`: only front ends keep warm sessions). */
  #warmQueue?: Queue;
  readonly #redis: Redis;
  readonly #log: (line: string) => void;

  readonly #openWarm: () => Queue;

  private constructor(
    o: ClusterClientOptions,
    sessions: SessionLog,
    queue: Queue,
    redis: Redis,
    openWarm: () => Queue,
  ) {
    this.sessions = sessions;
    this.where = redactUrl(o.redis);
    this.#queue = queue;
    this.#redis = redis;
    this.#log = o.log ?? (() => undefined);
    this.#openWarm = openWarm;
  }

  #warm(): Queue {
    if (this.#warmQueue) return this.#warmQueue;
    const queue = this.#openWarm();
    queue.on('error', (error: Error) => this.#log(`agentpipe cluster: warm queue: ${error.message}`));
    return (this.#warmQueue = queue);
  }

  /** Queues a warm session (job.warmMs set): a worker opens it and says when it is ready (SessionLog.waitReady). */
  async addWarm(job: SessionJob): Promise<void> {
    // Marked first: from its first moment in Redis no connection may name it (SessionLog.isPooled).
    await this.sessions.markPooled(job.sessionId, POOLED_TTL_MS);
    await this.#warm().add('session', job, sessionJobOptions(job.sessionId));
  }

  /**
   * Takes a ready warm session (queued with `addWarm` with this `job`) for a client: claims it (SessionLog.claimWarm);
   * one its worker discarded as it was taken is started as a new session (a job of the sessions queue). Its input may
   * be pushed before or after: a worker runs it either way. True when the claim took the warm run.
   */
  async takeWarm(job: SessionJob, claim = claimLine()): Promise<boolean> {
    if (await this.sessions.claimWarm(job.sessionId, claim)) return true;
    await this.start({ sessionId: job.sessionId, options: job.options, stream: job.stream }, 30_000, undefined, true);
    return false;
  }

  /** Removes a warm session's job if no worker took it yet (a front end closing). */
  async removeWarm(sessionId: string): Promise<void> {
    // Removed before a worker took it: nothing of the session ran, so nothing of it stays (its pooled mark).
    if ((await this.#warm().remove(sessionId)) === 1) await this.sessions.delete(sessionId);
  }

  /**
   * True while the session runs (or waits to run) as a warm job: a client took a warm session, so its run is a job of
   * the warm queue, not of the sessions queue.
   */
  async #runsWarm(sessionId: string): Promise<boolean> {
    const found = await this.#warm().getJob(sessionId);
    if (!found) return false;
    const state = await found.getState();
    return PENDING.has(state) || (state === 'active' && (await this.running(sessionId)));
  }

  /** Connects (bounded: a RedisConnectionError that says why within seconds). */
  static async open(o: ClusterClientOptions): Promise<ClusterClient> {
    // No offline queue: what this client gives up on (a start, a claim, input) never lands later.
    const sessions = new SessionLog({ redis: o.redis, offlineQueue: false });
    try {
      await sessions.connect();
    } catch (error) {
      await sessions.close();
      throw error;
    }
    const [{ Queue: BullQueue }, { Redis: IoRedis }] = await Promise.all([import('bullmq'), import('ioredis')]);
    const redis = new IoRedis(o.redis, {
      maxRetriesPerRequest: 3,
      retryStrategy: reconnectDelay,
      connectTimeout: 3000,
      enableOfflineQueue: false,
      connectionName: 'agentpipe-client',
    });
    const queue = new BullQueue(QUEUE.name, { connection: redis, prefix: QUEUE.prefix });
    queue.on('error', (error: Error) => o.log?.(`agentpipe cluster: queue: ${error.message}`));
    try {
      await queue.waitUntilReady();
    } catch (error) {
      await Promise.allSettled([queue.close(), sessions.close()]);
      redis.disconnect();
      throw new RedisConnectionError(
        `cannot open the sessions queue on ${redactUrl(o.redis)}: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
    const openWarm = (): Queue => new BullQueue(WARM_QUEUE.name, { connection: redis, prefix: WARM_QUEUE.prefix });
    return new ClusterClient(o, sessions, queue, redis, openWarm);
  }

  /** The last durable entry of a session's log, if any, with the owner token that appended it. */
  async lastEntry(sessionId: string): Promise<LogEntry | undefined> {
    return (await this.sessions.lastEntries(sessionId, 1))[0];
  }

  /** The last `count` durable entries of a session's log, newest first. */
  lastEntries(sessionId: string, count: number): Promise<LogEntry[]> {
    return this.sessions.lastEntries(sessionId, count);
  }

  /**
   * True while a run of the session goes on: an owner holds its lease and did not end it (the log
   * does not end with an end marker of that owner's). False while an ended run is letting go.
   */
  async running(sessionId: string): Promise<boolean> {
    const [owner, last] = await Promise.all([this.sessions.owner(sessionId), this.lastEntry(sessionId)]);
    if (!owner) return false;
    return !(last?.message.type === 'agentpipe_session_end' && last.owner === owner.token);
  }

  /**
   * Makes sure a worker runs the session with `job`: adds its job (id = session id). When a job
   * with that id is there already, it runs the session's input if it waits or runs; a job of a
   * run that ended (finishing, or kept after a failure) is waited for or removed, and the job is
   * added again. Gives up with an Error after `timeoutMs`. A session that runs as a warm job
   * (a client took it warm) is left alone; `fresh` (an id nobody used yet) skips that look.
   * Says how: `new` (this call's job), `pending` (a job waits for a worker) or `running` (a run goes
   * on and will read the input; it may be about to end, which the caller checks if it matters).
   */
  async start(
    job: SessionJob,
    timeoutMs = 30_000,
    signal?: AbortSignal,
    fresh = false,
  ): Promise<'new' | 'pending' | 'running'> {
    const id = job.sessionId;
    const nonce = randomUUID();
    const deadline = Date.now() + timeoutMs;
    // A session a client took warm runs as a job of the warm queue: a job of the sessions queue would be a second run.
    if (!fresh && (await this.#runsWarm(id))) return 'running';
    for (let attempt = 0; !signal?.aborted; attempt++) {
      if (attempt > 0 && Date.now() > deadline)
        throw new Error(`session ${id}: its previous run did not finish within ${timeoutMs} ms`);
      await this.#queue.add('session', { ...job, nonce }, sessionJobOptions(id));
      const found = await this.#queue.getJob(id);
      const data: unknown = found?.data;
      if (isRecord(data) && data.nonce === nonce) return 'new'; // ours: a new run
      const state = found ? await found.getState() : 'unknown';
      if (PENDING.has(state)) return 'pending';
      if (state === 'active' && (await this.running(id))) return 'running';
      if (state === 'completed' || state === 'failed') {
        await found?.remove().catch(() => undefined); // kept from an earlier run: the next add is a new run
        continue;
      }
      if (state === 'unknown') continue; // gone between the add and the look: add again
      if (attempt === 0) this.#log(`agentpipe cluster: session ${id}: waiting for its previous run to finish`);
      await sleep(Math.min(reconnectDelay(attempt), 200), { signal, onAbort: 'resolve' });
    }
    return 'pending';
  }

  /** Durable messages in a session's log. */
  length(sessionId: string): Promise<number> {
    return this.sessions.length(sessionId);
  }

  /** Adds input lines to the session's inbox, retrying a lost connection for a few seconds. */
  async push(sessionId: string, lines: readonly string[]): Promise<void> {
    await retryRedis(() => this.sessions.pushInput(sessionId, lines), { forMs: 5000 });
  }

  /** Workers connected to the sessions queue now. */
  async workers(): Promise<number> {
    return this.#queue.getWorkersCount();
  }

  /** Session ids that have a log in Redis (a SCAN: fine for a page, not for a hot path). */
  sessionIds(limit = 1000): Promise<string[]> {
    return this.sessions.sessionIds(limit);
  }

  /** The first entries of a session's log (for a summary: its first prompt, model, start time). */
  firstEntries(sessionId: string, count: number): Promise<LogEntry[]> {
    return this.sessions.firstEntries(sessionId, count);
  }

  /** Closes the queue and the connections. */
  async close(): Promise<void> {
    await Promise.allSettled([this.#queue.close(), this.#warmQueue?.close(), this.sessions.close()]);
    this.#redis.disconnect();
  }
}
