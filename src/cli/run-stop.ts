/**
 * How a print run stops on SIGINT, SIGTERM or SIGHUP: in stages, as a person at a terminal
 * expects of Ctrl-C, and always with the result the run owes (issue 28, B4: a second Ctrl-C killed
 * agentpipe at once, with no result, while a tool that ignores SIGTERM ran on).
 *
 *   running ──signal──▶ interrupting ──signal──▶ killing ──signal──▶ exiting
 *                            │ deadline               │ deadline
 *                            └────────────────────────┴──────────────────▶ exiting
 *
 * - interrupting: the running prompt is interrupted (model request, tools: SIGTERM to their
 *   process groups, SIGKILL after their grace), queued prompts are dropped; the prompt ends with
 *   its result as an interrupt ends it.
 * - killing (a second signal): every tool's process group gets SIGKILL now; the result follows.
 * - exiting (a third signal, or a deadline: `graceMs` after the first signal, `killMs` after the
 *   second): the run ends at once, with the result it owes if the prompt did not give it.
 *
 * The exit code of a run a signal stopped is 128 + the signal's number (130, 143, 129), as a shell
 * reports a process a signal ended, whatever the result says.
 */
import { monotonicMs } from '../process/clock.ts';
import { envMs } from '../process/env-number.ts';
import type { StopSignal } from './early-signals.ts';

/** Where a stopping run is. */
export type StopState = 'running' | 'interrupting' | 'killing' | 'exiting';

/** What each stage does; set (and replaced) by the run as it goes from start-up to its prompts. */
export interface StopActions {
  interrupt(signal: StopSignal): void;
  kill(): void;
  /** Ends the run now (once). */
  exit(signal: StopSignal): void;
}

const SIGNAL_NUMBERS: Record<StopSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

export class RunStop {
  #state: StopState = 'running';
  #signal?: StopSignal;
  #actions?: StopActions;
  #deadline?: NodeJS.Timeout;
  /** When the deadline is due (`now()` time). */
  #due = Infinity;
  readonly #now: () => number;
  readonly #graceMs: number;
  readonly #killMs: number;
  readonly #log: (line: string) => void;
  readonly #stopped = new AbortController();

  /**
   * `graceMs`: from the first signal to the end, at most (AGENTPIPE_STOP_GRACE_MS, default 3,000: the tools' own
   * SIGTERM → SIGKILL grace is 2,000, and the official SDK kills its CLI 5,000 after SIGTERM); `killMs`: from the
   * second signal to the end, at most (1,000).
   */
  constructor(log: (line: string) => void, options: { graceMs?: number; killMs?: number; now?: () => number } = {}) {
    this.#log = log;
    this.#now = options.now ?? monotonicMs;
    this.#graceMs = options.graceMs ?? envMs('AGENTPIPE_STOP_GRACE_MS', 3000);
    this.#killMs = options.killMs ?? Math.min(1000, this.#graceMs);
  }

  get state(): StopState {
    return this.#state;
  }

  /** Aborted at the first signal: start-up steps that wait (reading stdin) stop waiting. */
  get signal(): AbortSignal {
    return this.#stopped.signal;
  }

  /** The first signal, once one came. */
  get stopSignal(): StopSignal | undefined {
    return this.#signal;
  }

  /** 128 + the first signal's number once a signal came; undefined before. */
  get exitCode(): number | undefined {
    return this.#signal && 128 + SIGNAL_NUMBERS[this.#signal];
  }

  /** The stage's actions from now on; a stop already under way is carried out with them. */
  attach(actions: StopActions): void {
    this.#actions = actions;
    if (this.#state === 'interrupting' || this.#state === 'killing') actions.interrupt(this.#signal!);
    if (this.#state === 'killing') actions.kill();
  }

  /** A stop signal came. */
  receive(signal: StopSignal): void {
    switch (this.#state) {
      case 'running':
        this.#signal = signal;
        this.#setState('interrupting');
        this.#log(`agentpipe: ${signal}: interrupting (send it again to kill the running tools at once)`);
        this.#stopped.abort(new DOMException(`${signal} received`, 'AbortError'));
        this.#actions?.interrupt(signal);
        this.#arm(this.#graceMs);
        return;
      case 'interrupting':
        this.#setState('killing');
        this.#log(`agentpipe: ${signal} again: killing the running tools`);
        this.#actions?.kill();
        this.#arm(this.#killMs);
        return;
      case 'killing':
        this.#log(`agentpipe: ${signal} a third time: ending now`);
        return this.#exit();
      case 'exiting':
        return;
    }
  }

  #setState(state: StopState): void {
    this.#state = state;
  }

  /** Ends the run within `ms` from now (sooner if already due). */
  #arm(ms: number): void {
    const due = this.#now() + ms;
    if (this.#due <= due) return;
    clearTimeout(this.#deadline);
    this.#due = due;
    this.#deadline = setTimeout(() => {
      this.#log(`agentpipe: the run did not end within ${ms} ms of the signal; ending now`);
      this.#exit();
    }, ms);
    this.#deadline.unref();
  }

  #exit(): void {
    if (this.#state === 'exiting') return;
    this.#setState('exiting');
    clearTimeout(this.#deadline);
    this.#actions?.exit(this.#signal!);
  }
}
