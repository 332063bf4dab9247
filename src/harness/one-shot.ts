/**
 * What the one-process-per-prompt harnesses (Codex, Gemini CLI) share: the wrapped agent's own
 * session id (resumed, then as the CLI reports it), a lazily made temp folder for the files their
 * options need, the prompt's process (started with the prompt as an argument, read to its end and
 * stopped on an abort), and `run`/`close` around them. Each subclass builds its argv and
 * translates its CLI's events.
 */
import { errorMessage } from '../process/errors.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProcessGroupResult } from '../process/run.ts';
import { drainOneShot, startCli, withTraceparent, type CliProcess } from './cli-process.ts';
import { TurnState } from './turn-state.ts';
import type { Harness, HarnessConfig, HarnessOutcome, HarnessTurn } from './types.ts';

/** The prompt's process: where it starts and how its stdout lines are read. */
export interface OneShotProcess {
  argv: string[];
  env: Record<string, string>;
  /** Each JSON line of stdout, in order. */
  onEvent: (value: Record<string, unknown>) => Promise<void>;
  /** Any other line (the first 80 characters). */
  onGarbage: (text: string) => void;
}

export abstract class OneShotCliHarness implements Harness {
  abstract readonly name: 'codex' | 'gemini';
  readonly config: HarnessConfig;
  readonly sessionId: string;
  /** The wrapped agent's own session (thread) id: the one to resume, then the one it reports. */
  protected nativeId: string | undefined;
  #tempDir: string | undefined;
  #process: CliProcess | undefined;

  constructor(config: HarnessConfig, sessionId: string) {
    this.config = config;
    this.sessionId = sessionId;
    this.nativeId = config.resumeNativeId;
  }

  get nativeSessionId(): string | undefined {
    return this.nativeId;
  }

  /** A new model or mode takes effect with the next prompt's process. */
  configure(change: { model?: string; permissionMode?: HarnessConfig['permissionMode'] }): void {
    Object.assign(this.config, change);
  }

  async run(turn: HarnessTurn): Promise<HarnessOutcome> {
    const state = new TurnState(turn, this.config, this.sessionId);
    try {
      return await this.runPrompt(state, turn);
    } catch (error) {
      if (this.#process) await this.stop(this.#process);
      return state.failure([`${this.name} harness: ${errorMessage(error)}`]);
    } finally {
      this.#process = undefined;
    }
  }

  async close(): Promise<void> {
    const running = this.#process;
    if (running) await this.stop(running);
    if (this.#tempDir) rmSync(this.#tempDir, { recursive: true, force: true });
    this.#tempDir = undefined;
  }

  /** Runs one prompt: builds the process with `runProcess` and turns what it printed into the outcome. */
  protected abstract runPrompt(state: TurnState, turn: HarnessTurn): Promise<HarnessOutcome>;

  /** Stops the prompt's process and waits for it to end. */
  protected async stop(proc: CliProcess): Promise<void> {
    proc.stop();
    await proc.done;
  }

  /** The harness's temp folder (made on first use, removed by `close`). */
  protected temp(): string {
    return (this.#tempDir ??= mkdtempSync(path.join(os.tmpdir(), `agentpipe-${this.name}-`)));
  }

  /**
   * Starts the prompt's process, its stdin ended (the prompt is an argument: the CLI must not wait
   * for more), and reads it to its end. Returns its exit, or undefined when the prompt was aborted.
   */
  protected async runProcess(turn: HarnessTurn, p: OneShotProcess): Promise<ProcessGroupResult | undefined> {
    const proc = await startCli(
      { argv: p.argv, cwd: this.config.cwd, env: withTraceparent(p.env, turn.traceparent), idleMs: this.config.idleMs },
      this.config,
    );
    this.#process = proc;
    proc.endInput();
    return await drainOneShot(proc, turn.signal, p.onEvent, p.onGarbage, () => this.stop(proc));
  }
}
