/**
 * Bounded Redis: a session whose run ended is archived once it has been idle for `archiveAfterMs`
 * (an `archive` job delayed on the sessions queue): its log is written to
 * `<archiveDir>/<id>.jsonl` (the transcript a single process writes) and its keys are deleted. A
 * session asked for again is restored from that file by the worker that runs it. A session whose
 * worker died before it queued the job is found by the archive sweep (sweeper.ts).
 *
 * The archive job holds the session's lease while it works, so no run can start meanwhile, and
 * refuses a session whose log does not end with a run's end marker: a prompt was in flight when
 * its worker was lost, and the run that takes it over goes on with it (issue 28 B3).
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import { ArchiveRefusedError, streamIdTime, type SessionLog } from '../log/index.ts';
import { archiveJobId, FAILED_JOBS_KEPT, parseArchiveJob } from '../jobs.ts';
import { archiveFile } from '../run/archive-restore.ts';

/** When the session last had input or output (ms since the epoch, from the stream ids). */
export async function lastActivity(log: SessionLog, sessionId: string): Promise<number> {
  const [out, input] = await Promise.all([log.lastId(sessionId), log.lastInputId(sessionId)]);
  return Math.max(streamIdTime(out), streamIdTime(input));
}

/** What archiving needs. */
export interface ArchivingOptions {
  log: SessionLog;
  queue: Queue;
  /** The worker's id (its archive leases name it). */
  worker: string;
  /** Where sessions are archived; undefined: this worker never archives (--no-archive). */
  archiveDir?: string;
  archiveAfterMs: number;
  leaseMs: number;
  print: (line: string) => void;
}

export class Archiving {
  readonly #o: ArchivingOptions;
  constructor(o: ArchivingOptions) {
    this.#o = o;
  }

  /** Queues the session's archive job, due when it will have been idle for archiveAfterMs (a no-op if one waits). */
  async schedule(sessionId: string): Promise<void> {
    const { log, queue, archiveDir, archiveAfterMs } = this.#o;
    if (!archiveDir) return;
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
  }

  /** The archive job: archives an idle session whose run ended; one running, in flight or with input is left alone. */
  async run(job: Job, token?: string): Promise<string> {
    const { log, archiveDir, archiveAfterMs } = this.#o;
    const { sessionId } = parseArchiveJob(job.data);
    const { DelayedError } = await import('bullmq');
    if (!archiveDir && token) {
      // Queued by a worker that archives (this one runs with --no-archive): it waits for one of those.
      await job.moveToDelayed(Date.now() + archiveAfterMs, token);
      throw new DelayedError();
    }
    if (!archiveDir || !(await log.exists(sessionId))) return 'nothing to archive';
    const due = (await lastActivity(log, sessionId)) + archiveAfterMs;
    if (due > Date.now() && token) {
      await job.moveToDelayed(due, token);
      throw new DelayedError();
    }
    const owner = `${this.#o.worker}:archive:${randomUUID()}`;
    if (!(await log.acquire(sessionId, owner, this.#o.leaseMs))) return 'running on a worker: archived after its run';
    try {
      if ((await log.lastEntries(sessionId, 1))[0]?.message.type !== 'agentpipe_session_end') {
        await log.release(sessionId, owner);
        return 'a prompt of it is in flight or awaits a takeover: archived after its run';
      }
      const file = archiveFile(archiveDir, sessionId);
      const lines = await log.archive(sessionId, file, owner);
      this.#o.print(
        `agentpipe worker: session ${sessionId}: archived to ${file} (${lines} lines); its Redis keys are deleted`,
      );
      return 'archived';
    } catch (error) {
      // The lease expires on its own; the archive's failure is what is reported.
      await log.release(sessionId, owner).catch(() => undefined);
      // Input came in for it (the front end that took it starts its run, which schedules the next archive).
      if (!ArchiveRefusedError.isInstance(error)) throw error;
      return error.message;
    }
  }
}
