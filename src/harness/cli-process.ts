/**
 * A wrapped agent CLI as a process: started in its own process group (process/run.ts), its
 * stdout read as JSON lines at the reader's pace (the pipe applies backpressure to the CLI), its
 * stdin written with backpressure, its stderr kept (the tail explains a crash). Stopping it is
 * SIGTERM to the group, then SIGKILL after the grace period.
 */
import { once } from 'node:events';
import { type FramedLine, LineSplitter, maxLineFromEnv } from '../messages/ndjson.ts';
import { startProcessGroup, type ProcessGroupResult, type RunningGroup } from '../process/run.ts';
import { confineCli } from './confine.ts';
import type { HarnessConfig } from './types.ts';
import { isRecord } from '../process/guards.ts';

/** One line of the CLI's stdout: parsed JSON, or why it is not. */
export type CliLine = { ok: true; value: Record<string, unknown> } | { ok: false; text: string; error: string };

export interface CliProcessOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** SIGTERM → SIGKILL grace (ms, default 2000). */
  graceMs?: number;
  /** Characters of stderr kept (the tail is what a crash is reported with). */
  stderrCap?: number;
  /** Stops the CLI when it prints nothing on stdout for this long (ms); none when undefined. */
  idleMs?: number;
}

/** Starts the CLI in the session's sandbox (`sandbox` and `name` from the harness config). */
/**
 * `env` with the prompt's trace context as TRACEPARENT (telemetry on: the prompt's span replaces the context agentpipe
 * was given, and its TRACESTATE); unchanged when telemetry is off.
 */
export function withTraceparent(env: Record<string, string>, traceparent: string | undefined): Record<string, string> {
  if (!traceparent) return env;
  const { TRACESTATE: _, ...rest } = env;
  return { ...rest, TRACEPARENT: traceparent };
}

export async function startCli(
  o: CliProcessOptions,
  config: Pick<HarnessConfig, 'name' | 'cwd' | 'sandbox' | 'baseUrl'>,
): Promise<CliProcess> {
  const confined = await confineCli(config, o.argv, o.env);
  const cli = new CliProcess({ ...o, argv: confined.argv, env: confined.env });
  void cli.done.then(() => confined.release());
  return cli;
}

export class CliProcess {
  readonly #group: RunningGroup;
  readonly done: Promise<ProcessGroupResult>;
  #exited = false;
  readonly #idleMs?: number;
  #idleTimer?: NodeJS.Timeout;
  #idled = false;

  constructor(o: CliProcessOptions) {
    this.#group = startProcessGroup({
      command: o.argv,
      cwd: o.cwd,
      env: o.env,
      interactive: true,
      graceMs: o.graceMs ?? 2000,
      cap: o.stderrCap ?? 16_000,
    });
    this.#idleMs = o.idleMs;
    this.#armIdle();
    this.done = this.#group.done.then((result) => {
      this.#exited = true;
      clearTimeout(this.#idleTimer);
      // Every translator reports the stderr tail of a CLI that ended early: say why it was stopped.
      if (this.#idled)
        result.stderr +=
          `\n[agentpipe] stopped after ${Math.round(this.#idleMs! / 1000)} s without output ` +
          `(AGENTPIPE_HARNESS_IDLE_MS)`;
      return result;
    });
  }

  /** (Re)starts the idle timer: a CLI silent for `idleMs` is stopped. */
  #armIdle(): void {
    if (this.#idleMs === undefined) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      this.#idled = true;
      this.stop();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }

  get pid(): number | undefined {
    return this.#group.pid;
  }

  get exited(): boolean {
    return this.#exited;
  }

  /**
   * Parsed stdout lines until the CLI closes its stdout. A line over the cap (messages/ndjson.ts,
   * `AGENTPIPE_MAX_INPUT_LINE`) is dropped, never held, and reported.
   */
  async *lines(): AsyncGenerator<CliLine> {
    const output = this.#group.output;
    if (!output) return;
    const splitter = new LineSplitter(maxLineFromEnv());
    const framed = (items: FramedLine[]): CliLine[] =>
      items.map((item) =>
        'line' in item
          ? parseLine(item.line)
          : { ok: false, text: item.head, error: `a line longer than ${splitter.maxLine} characters was dropped` },
      );
    for await (const chunk of output as AsyncIterable<Buffer>) {
      this.#armIdle();
      yield* framed(splitter.push(chunk));
    }
    yield* framed(splitter.end());
  }

  /** Writes one JSON line to the CLI's stdin, waiting while its pipe is full; false when stdin is gone. */
  async write(value: unknown): Promise<boolean> {
    const input = this.#group.input;
    if (!input || input.destroyed || input.writableEnded || this.#exited) return false;
    if (!input.write(`${JSON.stringify(value)}\n`)) {
      await Promise.race([once(input, 'drain'), this.done]);
    }
    return !input.destroyed;
  }

  /** Closes the CLI's stdin (a stream-json CLI then finishes its queued prompts and exits). */
  endInput(): void {
    const input = this.#group.input;
    if (input && !input.writableEnded) input.end();
  }

  /** SIGTERM to the group, SIGKILL after the grace period. */
  stop(): void {
    if (!this.#exited) this.#group.stop('aborted');
  }
}

function parseLine(line: string): CliLine {
  try {
    const value: unknown = JSON.parse(line);
    if (isRecord(value)) return { ok: true, value };
    return { ok: false, text: line.slice(0, 200), error: 'a JSON value that is not an object' };
  } catch {
    return { ok: false, text: line.slice(0, 200), error: 'not JSON' };
  }
}

/** The last lines of a CLI's stderr, for an error message. */
export function stderrTail(stderr: string, lines = 5): string {
  return stderr.trim().split('\n').slice(-lines).join('\n');
}

/**
 * Reads a one-prompt CLI (Codex, Gemini CLI) to its end: each JSON line goes to `onEvent`, any
 * other line to `onGarbage`; an abort runs `stop` (which must end the process). Returns the exit,
 * or undefined when the prompt was aborted. A CLI that closes stdout but lingers is stopped.
 */
export async function drainOneShot(
  proc: CliProcess,
  signal: AbortSignal,
  onEvent: (value: Record<string, unknown>) => Promise<void>,
  onGarbage: (text: string) => void,
  stop: () => Promise<void>,
): Promise<ProcessGroupResult | undefined> {
  const onAbort = () => void stop();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const line of proc.lines()) {
      if (signal.aborted) break;
      if (line.ok) await onEvent(line.value);
      else onGarbage(line.text.slice(0, 80));
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted) {
    await stop();
    return undefined;
  }
  const timer = setTimeout(() => proc.stop(), 5000);
  const exit = await proc.done;
  clearTimeout(timer);
  return exit;
}

/** How a CLI ended, for an error message: `exited with code 3`, `was ended by SIGTERM`, `could not be started (…)`. */
export function howItEnded(exit: ProcessGroupResult): string {
  if (exit.error) return `could not be started (${exit.error.message})`;
  return exit.code !== null ? `exited with code ${exit.code}` : `was ended by ${exit.exitSignal ?? 'a signal'}`;
}
