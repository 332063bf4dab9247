/**
 * The running part of a session run (session-run.ts): the session opened from the run's
 * transcript, its input read from the inbox (inbox-input.ts), its stream to the log
 * (run-output.ts), its model requests and tool calls guarded (tool-journal.ts), until its input
 * ends: end of input, idle (IDLE), a draining worker once no prompt runs (DRAIN), or the stop.
 * A warm session is claimed by its first input line (WARM); unclaimed, it ends after its warm time.
 */
import { randomBytes } from 'node:crypto';
import type { ParsedLine } from '../../messages/parse.ts';
import { runStreamSession } from '../../session/serve-session.ts';
import type { SessionOptions } from '../../session/options.ts';
import { telemetryInEnv } from '../../telemetry/load.ts';
import type { SessionJob } from '../jobs.ts';
import type { Appender } from './appender.ts';
import { InboxInput } from './inbox-input.ts';
import type { LeaseKeeper } from './lease-keeper.ts';
import { RunOutput } from './run-output.ts';
import type { Opened, SessionRunOptions } from './session-run.ts';
import type { CutTurnFound } from './takeover.ts';
import { ToolJournal } from './tool-journal.ts';

/** What the active part of a run works with. */
export interface ActiveRunOptions {
  run: SessionRunOptions;
  opened: Opened;
  keeper: LeaseKeeper;
  appender: Appender;
  /** Stops the session (the worker closing, the lease lost). */
  stop: AbortSignal;
  /** The run may still act (its lease may be held, its hand-back time not spent). */
  mayAct: () => boolean;
}

export class ActiveRun {
  readonly #o: ActiveRunOptions;
  readonly #id: string;
  readonly #tag = randomBytes(4).toString('hex');
  /** Ids of the state requests handled again after a takeover (their answers stay out of the log). */
  readonly #silent = new Set<string>();
  #claimed = false;
  #wrote = false;
  /** Prompts taken and not yet ended by a result (a draining run ends when none is left). */
  #running = 0;
  readonly #idle = new IdleTimer(() => this.#idleOut());
  readonly #input: InboxInput;

  constructor(o: ActiveRunOptions) {
    this.#o = o;
    this.#id = o.run.job.sessionId;
    const { opened } = o;
    this.#input = new InboxInput({
      log: o.run.log,
      sessionId: this.#id,
      token: o.run.token,
      tag: this.#tag,
      seen: startedPrompts(opened),
      silent: this.#silent,
      ...(opened.continues && opened.cut ? { continued: continuedPrompt(this.#id, opened.cut) } : {}),
      draining: () => o.run.drain?.aborted === true,
      mayAct: o.mayAct,
      signal: o.stop,
      onLine: () => {
        if (!this.#claimed) o.run.onClaimed?.();
        this.#claimed = true;
        this.#idle.touch(o.run.idleMs);
      },
      onPrompt: () => this.#running++,
    });
  }

  /** Runs until the input ends; whether the session was claimed (warm) and wrote anything. */
  async run(): Promise<{ claimed: boolean; wrote: boolean }> {
    const { run } = this.#o;
    const endIfDrained = (): void => this.#endIfDrained();
    run.drain?.addEventListener('abort', endIfDrained, { once: true });
    try {
      this.#claimed = await this.#claimedAlready();
      if (this.#claimed && run.job.warmMs) run.onClaimed?.();
      this.#idle.touch(this.#idleMs());
      this.#endIfDrained();
      await this.#session();
    } finally {
      this.#idle.stop();
      this.#input.end();
      run.drain?.removeEventListener('abort', endIfDrained);
    }
    return { claimed: this.#claimed, wrote: this.#wrote };
  }

  /** WARM: one with history, a moved cursor or input waiting (a takeover of a claimed one) is claimed already. */
  async #claimedAlready(): Promise<boolean> {
    const { log, job } = this.#o.run;
    if (!job.warmMs || this.#o.opened.entries.length > 0) return true;
    return (await log.cursor(this.#id)) !== '0-0' || (await log.hasPendingInput(this.#id));
  }

  async #session(): Promise<void> {
    const { run, keeper, appender } = this.#o;
    const output = new RunOutput({
      log: run.log,
      appender,
      tag: this.#tag,
      silent: this.#silent,
      clientMirror: run.job.options.sessionMirror === true,
      started: (uuid) => this.#input.started(uuid),
      wrote: () => {
        this.#wrote = true;
        this.#idle.touch(this.#idleMs());
      },
      result: () => {
        this.#running = Math.max(0, this.#running - 1);
        queueMicrotask(() => this.#endIfDrained());
      },
    });
    const journal = new ToolJournal({ keeper, appender, log: run.log, sessionId: this.#id, worker: run.worker });
    const { stream } = run.job;
    await runStreamSession({
      options: sessionOptions(run.job, this.#o.opened, journal),
      input: this.#input.lines,
      send: (line) => output.send(line),
      log: (line) => run.print(`${line} (session ${this.#id})`),
      signal: this.#o.stop,
      replayUserMessages: stream.replayUserMessages,
      permissionPromptTool: stream.permissionPromptTool,
      awaitInitialize: stream.awaitInitialize,
      onSession: () => {
        if (!this.#claimed) run.onReady?.();
      },
    });
  }

  #idleMs(): number {
    const { run } = this.#o;
    return this.#claimed ? run.idleMs : (run.job.warmMs ?? run.idleMs);
  }

  /** IDLE: no input or output for its idle time (a warm one's: its warm time); the run ends. */
  #idleOut(): void {
    const what = this.#claimed ? 'idle' : 'warm, not taken,';
    this.#o.run.print(`agentpipe worker: session ${this.#id}: ${what} for ${this.#idleMs()} ms; ending its run`);
    this.#input.end();
  }

  /** DRAIN: a draining worker's run ends once no prompt of it runs. */
  #endIfDrained(): void {
    if (this.#o.run.drain?.aborted && this.#running === 0) this.#input.end();
  }
}

/** The prompts the log shows started (their prompt line is there): not run again. */
function startedPrompts(opened: Opened): Set<string> {
  return new Set(
    opened.entries.flatMap(({ message: m }) =>
      m.type === 'user' && 'agentpipe_prompt' in m && m.agentpipe_prompt ? [m.uuid] : [],
    ),
  );
}

/**
 * The session options of a run: the job's, resumed from the run's transcript, guarded, the cut turn going on; with
 * telemetry when the worker's OTEL_* variables ask for it (the job's trace context the parent of its prompts).
 */
function sessionOptions(job: SessionJob, opened: Opened, guard: ToolJournal): SessionOptions {
  return {
    ...job.options,
    ...(telemetryInEnv(process.env) ? { telemetry: job.trace ? { ...job.trace } : true } : {}),
    resume: opened.file,
    persistSession: true,
    sessionMirror: true,
    runGuard: guard,
    ...(opened.continues ? { continueCutTurn: true } : {}),
  };
}

/** The cut prompt as an input line again: the runner goes on with its turn instead of running it anew. */
function continuedPrompt(sessionId: string, cut: CutTurnFound): ParsedLine {
  const content = cut.prompt.message.content;
  return {
    ok: true,
    message: {
      type: 'user',
      // What the runner matches is the uuid: the content only says what the prompt was.
      message: {
        role: 'user',
        content:
          typeof content === 'string' ? content : content.filter((b) => b.type !== 'tool_use' && b.type !== 'thinking'),
      },
      parent_tool_use_id: null,
      session_id: sessionId,
      uuid: cut.prompt.uuid,
      // The trace it ran under: its rest is in the same trace (parsed when the session reads it).
      ...(cut.prompt._meta ? { _meta: cut.prompt._meta } : {}),
    },
  };
}

/** Ends the run's input after a quiet time; each touch starts it again. */
class IdleTimer {
  #timer?: NodeJS.Timeout;
  readonly #fire: () => void;
  constructor(fire: () => void) {
    this.#fire = fire;
  }
  touch(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#fire, ms);
    this.#timer.unref();
  }
  stop(): void {
    clearTimeout(this.#timer);
  }
}
