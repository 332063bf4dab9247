/**
 * One session run by a worker, on the session's log, as a state machine:
 *
 *   acquiring ──▶ opening ──▶ running ──▶ ending ──▶ ended | fenced | lost | stopped | unclaimed
 *
 * - acquiring: the lease, waiting for a lost owner's to expire (TAKEOVER race: two runs of one
 *   session; the lease lets one write). The lease and the log are read in one round trip.
 * - opening: the log is read (restored from the archive when empty); a turn a lost worker left
 *   without a result is found (takeover.ts): its calls of unknown outcome are answered as such,
 *   the client told (`system/worker_lost`), and the turn goes on here; the log is written to a
 *   transcript in the worker's folder that the session resumes from.
 * - running: the session reads the inbox (inbox-input.ts) and its stream goes to the log
 *   (run-output.ts, appender.ts); every model request and tool call is guarded (tool-journal.ts)
 *   by the lease (lease-keeper.ts: LEASE LOST race, the run stops its tools before its lease can
 *   expire). DRAIN race: a draining worker takes no new prompt, the running ones finish. WARM
 *   race: a warm session is claimed by its first inbox line; one nobody claims ends unclaimed.
 * - ending: what was emitted lands; the end marker closes the run (`ended`) unless the lease went
 *   to another owner (`fenced`), could not be kept (`lost`: the job goes back to the queue), the
 *   worker is stopping (`stopped`), or a warm session was never claimed (`unclaimed`).
 * Whatever happens, the lease is given up (unless another owner has it) within a bounded time.
 */
import { sleep } from '../../process/retry.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { newUuid } from '../../messages/ids.ts';
import { monotonicMs } from '../../process/clock.ts';
import { errorMessage } from '../../process/errors.ts';
import { killAtOnce } from '../../process/run.ts';
import { FencedError, transcriptLine, type LogEntry, type SessionEndMarker, type SessionLog } from '../log/index.ts';
import type { SessionJob } from '../jobs.ts';
import { ActiveRun } from './active-run.ts';
import { Appender } from './appender.ts';
import { restoreArchive } from './archive-restore.ts';
import { LeaseKeeper, LeaseLostError } from './lease-keeper.ts';
import { continuationOf, findCutTurn, takeoverMessages, type CutTurnFound } from './takeover.ts';
import { cleanDeadWorkers } from '../worker/work-dir.ts';

/** What a run needs. */
export interface SessionRunOptions {
  log: SessionLog;
  job: SessionJob;
  /** Unique per acquisition: worker id + job id + a random part. */
  token: string;
  /** The worker's id (named in the journal and in a takeover's notice). */
  worker: string;
  /** The worker's own folder: the run's transcript lives in a folder of its own in it. */
  workDir: string;
  leaseMs: number;
  /** The session's run ends after this long without input or output. */
  idleMs: number;
  /** How long giving the session back may take when the run stops (its last appends, the lease). */
  handBackMs: number;
  /** Aborting stops the run (the worker is closing): the running prompt is interrupted, the lease released. */
  signal: AbortSignal;
  /**
   * Aborting ends the run gently (the worker is draining): no new prompt is taken from the inbox,
   * the running and queued ones finish, then the run ends as `stopped` and the lease is released.
   */
  drain?: AbortSignal;
  /** Where archived sessions are (`<dir>/<session id>.jsonl`): a session with no log is restored from there. */
  archiveDir?: string;
  print: (line: string) => void;
  /** Called once the session is open and its inbox is being read (a warm session is then ready for a client). */
  onReady?: () => void;
  /** A warm session's run: called once it is claimed (at its start when it is claimed already). */
  onClaimed?: () => void;
}

/**
 * How a run ended: `ended` (input ended or idle), `fenced` (another worker owns it now), `lost` (its lease could not
 * be kept: another worker goes on with it), `stopped` (the worker is stopping), `unclaimed` (a warm session no client
 * took: it had no history, took no input and appended nothing).
 */
export type RunOutcome = 'ended' | 'fenced' | 'lost' | 'stopped' | 'unclaimed';

/** The states of a run (see the module comment). */
export type RunStatus = 'acquiring' | 'opening' | 'running' | 'ending' | RunOutcome;

/** What opening found: the log, the turn that goes on, the transcript to resume from. */
export interface Opened {
  entries: LogEntry[];
  cut?: CutTurnFound;
  continues: boolean;
  file: string;
}

export class SessionRun {
  readonly #o: SessionRunOptions;
  readonly #id: string;
  #status: RunStatus = 'acquiring';
  /** Stops the session: the worker closing, or the lease lost (its reason then kills the tools at once). */
  readonly #stop = new AbortController();
  #keeper?: LeaseKeeper;
  #appender?: Appender;
  #dir?: string;
  /** The worker is stopping: the hand-back is bounded from this moment. */
  #giveUpAt = Infinity;

  constructor(o: SessionRunOptions) {
    this.#o = o;
    this.#id = o.job.sessionId;
  }

  get status(): RunStatus {
    return this.#status;
  }

  /** Runs the session until its input ends, it idles out, its lease is lost, or the worker stops. */
  async run(): Promise<RunOutcome> {
    const onClose = (): void => {
      this.#giveUpAt = monotonicMs() + this.#o.handBackMs;
      this.#stop.abort();
    };
    this.#o.signal.addEventListener('abort', onClose, { once: true });
    try {
      const read = await this.#acquire();
      if (!read) return (this.#status = 'stopped');
      return (this.#status = await this.#runLeased(read));
    } finally {
      this.#o.signal.removeEventListener('abort', onClose);
    }
  }

  /** The lease (waiting for a lost owner's to expire) and the log; undefined when the worker stopped first. */
  async #acquire(): Promise<{ entries: LogEntry[] | undefined; at: number } | undefined> {
    const { log, token, leaseMs, signal } = this.#o;
    // The lease and the log in one round trip (Redis runs them in order: nothing lands between them).
    let at = monotonicMs();
    const [leased, read] = await Promise.all([
      log.acquire(this.#id, token, leaseMs),
      // Read again after the lease, as when it had to wait.
      log.read(this.#id).catch(() => undefined),
    ]);
    if (leased) return { entries: read, at };
    let said = false;
    while (!signal.aborted) {
      at = monotonicMs();
      if (await log.acquire(this.#id, token, leaseMs)) return { entries: undefined, at };
      if (!said)
        this.#o.print(`agentpipe worker: session ${this.#id}: waiting for the previous owner's lease to expire`);
      said = true;
      await sleep(Math.max(50, Math.min(500, leaseMs / 4)), { signal, onAbort: 'resolve' });
    }
    return undefined;
  }

  async #runLeased(read: { entries: LogEntry[] | undefined; at: number }): Promise<RunOutcome> {
    const { log, token, leaseMs } = this.#o;
    const keeper = new LeaseKeeper(
      {
        sessionId: this.#id,
        leaseMs,
        ops: { renew: () => log.renew(this.#id, token, leaseMs), release: () => log.release(this.#id, token) },
        onLost: (error) => this.#lose(error),
        print: this.#o.print,
      },
      read.at,
    );
    this.#keeper = keeper;
    keeper.start();
    const appender = new Appender(
      {
        log,
        sessionId: this.#id,
        token,
        leaseMs,
        mayRetry: () => keeper.state !== 'lost' && monotonicMs() < this.#giveUpAt,
        onLanded: (sentAt) => keeper.confirm(sentAt),
      },
      (error) => this.#fail(error),
    );
    this.#appender = appender;
    try {
      this.#status = 'opening';
      const opened = await this.#open(read.entries);
      this.#status = 'running';
      const { claimed, wrote } = await this.#runSession(opened);
      this.#status = 'ending';
      await appender.drain();
      return await this.#outcome(claimed, wrote);
    } catch (error) {
      if (FencedError.isInstance(error) || LeaseLostError.isInstance(error)) return this.#lostOutcome();
      throw error;
    } finally {
      keeper.stop();
      await this.#handBack();
    }
  }

  /** Reads (or restores) the log, settles a cut turn, writes the transcript the session resumes from. */
  async #open(read: LogEntry[] | undefined): Promise<Opened> {
    const { log, job, token } = this.#o;
    let entries = read ?? (await log.read(this.#id));
    if (entries.length === 0 && this.#o.archiveDir) entries = await restoreArchive(this.#o, this.#o.archiveDir);
    const wrapped = job.options.harness !== undefined && job.options.harness !== 'agentpipe';
    const cut = findCutTurn(entries, wrapped);
    const continuation = continuationOf(entries, job.options.harness);
    const continues = cut !== undefined && continuation.continues;
    if (cut) {
      // What a dead worker on this machine left running (a wrapped CLI holding its session, a tool) stops before the
      // turn goes on: a resumed codex finds its thread's writer gone, and a cut call does not run on beside the next.
      cleanDeadWorkers(path.dirname(this.#o.workDir), this.#o.print);
      this.#o.print(
        `agentpipe worker: session ${this.#id}: prompt ${cut.prompt.uuid} was cut off by its worker's end ` +
          `(${cut.unknown.length} tool call(s) of unknown outcome); ` +
          (continuation.continues ? 'it goes on here' : `closing it: ${continuation.reason}`),
      );
      const messages = takeoverMessages(this.#id, this.#o.worker, cut, continuation);
      const records = log.encode(messages);
      const ids = await log.appendRecords(this.#id, token, records, this.#o.leaseMs);
      messages.forEach((message, i) => entries.push({ id: ids[i]!, message, json: records[i]!.json }));
    }
    this.#dir = await mkdtemp(path.join(this.#o.workDir, 'run-'));
    const file = path.join(this.#dir, `${this.#id}.jsonl`);
    const lines = entries.map((e) => transcriptLine(e.message)).filter((l) => l !== undefined);
    await writeFile(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    return { entries, cut, continues, file };
  }

  /** Runs the session until its input ends; whether it was claimed (warm) and wrote anything. */
  #runSession(opened: Opened): Promise<{ claimed: boolean; wrote: boolean }> {
    return new ActiveRun({
      run: this.#o,
      opened,
      keeper: this.#keeper!,
      appender: this.#appender!,
      stop: this.#stop.signal,
      mayAct: () => this.#keeper!.state !== 'lost' && monotonicMs() < this.#giveUpAt,
    }).run();
  }

  /** How the run ended once everything it emitted landed; appends the end marker of a run that ended. */
  async #outcome(claimed: boolean, wrote: boolean): Promise<RunOutcome> {
    const { log, token } = this.#o;
    if (this.#keeper!.lostError || this.#appender!.failed) return this.#lostOutcome();
    // Nothing of it is in Redis but its lease: no end marker (no client follows it); the worker discards it.
    if (!claimed && !wrote) return 'unclaimed';
    if (this.#o.signal.aborted || this.#o.drain?.aborted) return 'stopped';
    // The client's registration (hooks, callbacks) ends with the run: a later run handles only its own client's.
    await log.forgetState(this.#id, token, ['initialize']);
    const end: SessionEndMarker = {
      type: 'agentpipe_session_end',
      session_id: this.#id,
      uuid: newUuid(),
      reason: 'input ended',
      timestamp: new Date().toISOString(),
    };
    await log.append(this.#id, token, [end]);
    return 'ended';
  }

  /** `fenced` when another owner has the session, else `lost` (the lease could not be kept or the appends failed). */
  #lostOutcome(): RunOutcome {
    const lost = this.#keeper?.lostError;
    const failed = this.#appender?.failed;
    if (lost?.reason === 'fenced' || FencedError.isInstance(failed)) return 'fenced';
    return this.#o.signal.aborted && !lost ? 'stopped' : 'lost';
  }

  /** The lease is lost: nothing more lands, the session stops, its tools killed at once (the reason says so). */
  #lose(error: LeaseLostError): void {
    this.#o.print(`agentpipe worker: session ${this.#id}: stopping: ${error.message}`);
    this.#appender?.seal(error);
    this.#stop.abort(error);
  }

  /** An append failed for good (fenced, or Redis gone too long): the run stops, its tools at once. */
  #fail(error: Error): void {
    if (FencedError.isInstance(error) && this.#keeper) return this.#keeper.fence(error);
    this.#o.print(`agentpipe worker: session ${this.#id}: stopping: ${error.message}`);
    this.#stop.abort(killAtOnce(error));
  }

  /** What was emitted lands (bounded), the lease is given up (bounded), the run's folder goes. */
  async #handBack(): Promise<void> {
    const bound = this.#o.handBackMs;
    if (this.#giveUpAt === Infinity) this.#giveUpAt = monotonicMs() + Math.max(bound, this.#o.leaseMs);
    await this.#appender?.drain();
    await this.#keeper?.release(bound);
    const dir = this.#dir;
    if (dir)
      await rm(dir, { recursive: true, force: true }).catch((error: unknown) =>
        this.#o.print(`agentpipe worker: session ${this.#id}: its work folder ${dir} is left: ${errorMessage(error)}`),
      );
  }
}
