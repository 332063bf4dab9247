/**
 * The session jobs of a worker (both queues): each runs its session (run/session-run.ts) until
 * the run ends, again while input arrived as it ended, then schedules the archive. A warm job
 * waits for a client: at most `warm` of them unclaimed at once (WARM SLOT race: another waits for a
 * slot, here or on another worker); one no client took ends and is discarded, one claimed as it
 * ended goes on as a job of the sessions queue. A run that stopped (the worker is stopping) or lost
 * its lease hands its job back to the queue, so another run takes the session over at once; the
 * hand-back is bounded (with Redis gone it is left to BullMQ's stalled-job check).
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import { errorMessage } from '../../process/errors.ts';
import type { SessionLog } from '../log/index.ts';
import { parseSessionJob, sessionJobOptions, WARM_QUEUE, type SessionJob } from '../jobs.ts';
import { SessionRun, type RunOutcome } from '../run/session-run.ts';
import type { Archiving } from './archiving.ts';

/**
 * How long a warm session's ready mark outlives a worker that died holding it (a claim or the discard deletes it
 * otherwise): its job is taken again from the warm queue meanwhile, however long that waits for a free warm slot.
 */
const READY_TTL_MS = 24 * 3_600_000;
/** A warm job a worker cannot hold now (its warm sessions are all open and unclaimed) is taken again after this. */
const WARM_RETRY_MS = 250;

/** What the session jobs run with. */
export interface SessionJobsOptions {
  log: SessionLog;
  /** The sessions queue (a warm session claimed as it ended goes on there). */
  queue: Queue;
  archiving: Archiving;
  /** The worker's id and folder. */
  worker: string;
  workDir: string;
  leaseMs: number;
  idleMs: number;
  handBackMs: number;
  archiveDir?: string;
  /** Warm sessions held open at once waiting for a client. */
  warm: number;
  /** The worker is closing (runs are stopped) or draining (no new prompt). */
  closing: AbortSignal;
  draining: AbortSignal;
  print: (line: string) => void;
  /** Races a hand-back step against the bound; its value, or undefined when the bound ran out. */
  bounded: <T>(step: Promise<T>, what: string) => Promise<T | undefined>;
}

export class SessionJobs {
  readonly #o: SessionJobsOptions;
  /** Warm sessions open here that no client claimed yet (at most `warm`). */
  #unclaimed = 0;

  constructor(o: SessionJobsOptions) {
    this.#o = o;
  }

  /** The processor of a session job (either queue). */
  async process(job: Job, token?: string): Promise<string> {
    const { DelayedError, WaitingError } = await import('bullmq');
    let data: SessionJob;
    try {
      data = parseSessionJob(job.data);
    } catch (error) {
      this.#o.print(`agentpipe worker: job ${job.id ?? '?'} refused: ${errorMessage(error)}`);
      throw error;
    }
    const warm = job.queueName === WARM_QUEUE.name;
    if (warm && this.#unclaimed >= this.#o.warm && token) {
      await job.moveToDelayed(Date.now() + WARM_RETRY_MS, token);
      throw new DelayedError();
    }
    let waiting = warm;
    if (waiting) this.#unclaimed++;
    const onClaimed = (): void => {
      if (waiting) this.#unclaimed--;
      waiting = false;
    };
    let outcome: RunOutcome;
    try {
      outcome = await this.#runSession(job, data, warm, onClaimed);
    } finally {
      onClaimed();
    }
    if ((outcome === 'stopped' || outcome === 'lost') && token) {
      // The session goes back to the queue: another run takes it over at once (its lease was given up).
      await this.#o.bounded(job.moveToWait(token), `session ${data.sessionId}: handing its job back`);
      throw new WaitingError();
    }
    return outcome;
  }

  /** Runs the job's session until its run ends (again while input came in as it ended); its outcome. */
  async #runSession(job: Job, data: SessionJob, warm: boolean, onClaimed: () => void): Promise<RunOutcome> {
    const { log, print } = this.#o;
    const { sessionId } = data;
    const token = `${this.#o.worker}:${job.id ?? '?'}:${randomUUID()}`;
    print(`agentpipe worker: session ${sessionId}: started (attempt ${job.attemptsStarted}, owner ${token})`);
    const warmMs = warm ? data.warmMs : undefined;
    let outcome: RunOutcome;
    for (let cursor = await log.cursor(sessionId); ;) {
      const inputBefore = await log.lastInputId(sessionId);
      outcome = await this.#runOnce({ ...data, warmMs }, token, onClaimed);
      if (outcome === 'unclaimed') {
        // Deleted unless a client claimed it as its run was ending (an inbox line no run read): that client's
        // session then runs as a job of the sessions queue.
        if (await log.discard(sessionId, token)) break;
        outcome = 'ended';
        await this.#handOver(data);
        break;
      }
      // Input that came in while the run was ending (after its last read): it runs again. Not for input that was
      // there before the run and that it took none of (a run whose options cannot open a session would loop), but for
      // input that arrived during it, even when the run read nothing (a takeover run that only finishes the lost
      // owner's turn leaves a reconnected client's `end_input` unread). A warm session goes on as a job of the
      // sessions queue.
      if (outcome !== 'ended' || !(await log.hasPendingInput(sessionId))) break;
      if (warm) {
        await this.#handOver(data);
        break;
      }
      const moved = await log.cursor(sessionId);
      if (moved === cursor && (await log.lastInputId(sessionId)) === inputBefore) break;
      cursor = moved;
    }
    print(`agentpipe worker: session ${sessionId}: ${outcome}`);
    if (outcome === 'ended') await this.#o.archiving.schedule(sessionId);
    return outcome;
  }

  #runOnce(job: SessionJob, token: string, onClaimed: () => void): Promise<RunOutcome> {
    const o = this.#o;
    const { sessionId } = job;
    return new SessionRun({
      log: o.log,
      job,
      token,
      worker: o.worker,
      workDir: o.workDir,
      leaseMs: o.leaseMs,
      idleMs: o.idleMs,
      handBackMs: o.handBackMs,
      signal: o.closing,
      drain: o.draining,
      archiveDir: o.archiveDir,
      print: o.print,
      onReady: job.warmMs
        ? () =>
            void o.log
              .markReady(sessionId, READY_TTL_MS)
              .catch((error: unknown) =>
                o.print(`agentpipe worker: session ${sessionId}: cannot say it is warm: ` + `${errorMessage(error)}`),
              )
        : undefined,
      onClaimed,
    }).run();
  }

  /** Runs a warm session as a job of the sessions queue (a no-op while one waits or runs). */
  async #handOver(data: SessionJob): Promise<void> {
    const { sessionId, options, stream } = data;
    this.#o.print(`agentpipe worker: session ${sessionId}: input came in as its warm run ended; queued to run it`);
    await this.#o.queue.add('session', { sessionId, options, stream }, sessionJobOptions(sessionId));
  }
}
