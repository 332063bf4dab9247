/**
 * The EventEmitter face: `new Agent(options)`, runs and shell commands in a local sandbox
 * folder, with `content` (ACP SessionUpdates), `event` (Copilot-style session events),
 * `lifecycle`, `stdout` and `stderr` events, all projected from one query() stream.
 */
import { errorMessage } from '../process/errors.ts';
import { isPromptEcho, promptMessage } from '../messages/user.ts';
import { EventEmitter } from 'node:events';
import type { AgentMessage, ResultMessage } from '../messages/types.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { AcpUpdateProjector } from './acp-updates.ts';
import { commandEndReason, LifecycleTracker, runEndReason, type LifecycleReason } from './lifecycle.ts';
import { SessionEventProjector } from './session-events.ts';
import { closeSandbox, openSandbox, type Sandbox } from './sandbox.ts';
import { startCommand, type CommandResult, type RunningCommand } from './command.ts';
import { query } from './query.ts';
import { closeSandbox as closeOsSandbox, isSandboxMode, type SandboxConfig } from '../sandbox/config.ts';
import type { PromptMessage, Query, QueryOptions } from './types.ts';

export type { CommandResult } from './command.ts';
/** Options of an Agent: the query options; `cwd` is used as the sandbox (and kept on kill). */
export type AgentOptions = Omit<QueryOptions, 'abortController' | 'stderr'>;
export interface RunResult {
  sessionId: string;
  result: ResultMessage;
  text: string;
  timedOut: boolean;
}
interface RunParams {
  prompt: string;
  timeoutMs?: number;
}
const noop = (): void => {};

interface Background<T> {
  done: Promise<T>;
}

export class Agent extends EventEmitter {
  readonly #options: AgentOptions;
  readonly #lifecycle = new LifecycleTracker();
  #sandbox?: Sandbox;
  #osSandbox?: SandboxConfig;
  #booting?: Promise<Sandbox>;
  #query?: Query;
  #input?: AsyncMessageQueue<PromptMessage>;
  #acp = new AcpUpdateProjector({ showPrompts: false });
  #events = new SessionEventProjector();
  #sessionId = '';
  #waiting?: (result: ResultMessage | undefined) => void;
  #run?: Promise<unknown>;
  readonly #commands = new Set<RunningCommand>();
  #paused = false;

  constructor(options: AgentOptions = {}) {
    super();
    this.#options = options;
  }

  /** The sandbox folder (undefined before the first run or command, and after kill). */
  get sandbox(): string | undefined {
    return this.#sandbox?.path;
  }
  get sessionId(): string {
    return this.#sessionId;
  }

  run(params: RunParams & { background?: false }): Promise<RunResult>;
  run(params: RunParams & { background: true }): Promise<Background<RunResult>>;
  async run({
    prompt,
    timeoutMs,
    background = false,
  }: RunParams & { background?: boolean }): Promise<RunResult | Background<RunResult>> {
    if (typeof prompt !== 'string' || !prompt.trim())
      throw new TypeError('Agent.run(): prompt must be a non-empty string');
    if (this.#run) throw new Error('Agent.run(): a run is already in progress; wait for it or interrupt() it');
    await this.#ready();
    const q = this.#ensureQuery();
    const done = this.#runPrompt(q, prompt, timeoutMs, background);
    // The bookkeeping promise settles either way and never rejects: the caller handles `done`'s
    // failure, and a second, unhandled rejection would crash the process.
    this.#run = done.finally(() => (this.#run = undefined)).catch(noop);
    return background ? { done } : done;
  }

  async #runPrompt(q: Query, prompt: string, timeoutMs: number | undefined, background: boolean): Promise<RunResult> {
    this.#emitLifecycle('run_start');
    const resultArrived = new Promise<ResultMessage | undefined>((resolve) => (this.#waiting = resolve));
    await this.#input!.push(promptMessage(prompt, this.#sessionId));
    let timedOut = false;
    const onTimeout = (): void => {
      timedOut = true;
      void q.interrupt().catch(() => {}); // the run has ended meanwhile: nothing to interrupt
    };
    const timer = timeoutMs ? setTimeout(onTimeout, timeoutMs) : undefined;
    const result = await resultArrived;
    clearTimeout(timer);
    if (!result) {
      this.#emitLifecycle(background ? 'run_background_failed' : 'run_failed');
      throw new Error('Agent.run(): the session ended before the prompt produced a result');
    }
    this.#emitLifecycle(
      timedOut ? (background ? 'run_background_failed' : 'run_failed') : runEndReason(result, background),
    );
    const text = result.subtype === 'success' ? result.result : result.errors.join('; ');
    return { sessionId: result.session_id, result, text, timedOut };
  }

  executeCommand(command: string, options?: { timeoutMs?: number; background?: false }): Promise<CommandResult>;
  executeCommand(
    command: string,
    options: { timeoutMs?: number; background: true },
  ): Promise<Background<CommandResult>>;
  async executeCommand(
    command: string,
    { timeoutMs, background = false }: { timeoutMs?: number; background?: boolean } = {},
  ): Promise<CommandResult | Background<CommandResult>> {
    if (typeof command !== 'string' || !command.trim())
      throw new TypeError('Agent.executeCommand(): command must be a non-empty string');
    const sandbox = await this.#ready();
    this.#emitLifecycle('command_start');
    const running = startCommand(command, sandbox.path, {
      timeoutMs,
      env: { ...process.env, ...this.#options.env },
      sandbox: this.#commandSandbox(sandbox.path),
      onStdout: (chunk) => this.emit('stdout', chunk),
      onStderr: (chunk) => this.emit('stderr', chunk),
    });
    this.#commands.add(running);
    const done = running.done.then((result) => {
      this.#commands.delete(running);
      this.#emitLifecycle(commandEndReason(result.exitCode, result.interrupted, background));
      return result;
    });
    return background ? { done } : done;
  }

  /**
   * The OS sandbox of `executeCommand`: the folder writable, the mode and settings of the Agent's
   * options; one for the folder's life, so its commands share one egress proxy (closed on kill).
   */
  #commandSandbox(cwd: string): SandboxConfig {
    if (this.#osSandbox?.cwd === cwd) return this.#osSandbox;
    closeOsSandbox(this.#osSandbox);
    const option = this.#options.sandbox;
    const block =
      typeof option === 'object' ? [{ source: 'option' as const, label: 'the sandbox option', block: option }] : [];
    const settings = this.#options.settings;
    const fromSettings =
      typeof settings === 'object' && settings.sandbox !== undefined
        ? [{ source: 'flagSettings' as const, label: 'settings', block: settings.sandbox }]
        : [];
    this.#osSandbox = {
      mode: isSandboxMode(option) ? option : undefined,
      layers: [...fromSettings, ...block],
      cwd,
      directories: [],
      warn: (line) => this.emit('stderr', `agentpipe: warning: ${line}\n`),
    };
    return this.#osSandbox;
  }

  /** Interrupts the running prompt (it ends with its result) and stops running commands. */
  async interrupt(): Promise<void> {
    for (const command of this.#commands) command.stop();
    // The run has ended: nothing to interrupt.
    if (this.#run) await this.#query?.interrupt().catch(() => {});
    await this.#settle();
  }

  /** Stops what runs and suspends the sandbox; its folder and the conversation are kept. */
  async pause(): Promise<void> {
    if (!this.#sandbox || this.#paused) return;
    this.#paused = true;
    this.#emitLifecycle('sandbox_pause');
    await this.interrupt();
  }

  async resume(): Promise<void> {
    if (!this.#sandbox || !this.#paused) return;
    this.#paused = false;
    this.#emitLifecycle('sandbox_resume');
  }

  /** Stops everything, ends the session and removes the sandbox folder (unless it was the user's). */
  async kill(): Promise<void> {
    // A boot that failed was reported to its caller; nothing to stop.
    if (this.#booting) await this.#booting.catch(() => {});
    const sandbox = this.#sandbox;
    if (!sandbox) return;
    await this.interrupt();
    this.#input?.done();
    this.#query?.close();
    this.#query = undefined;
    this.#input = undefined;
    this.#sandbox = undefined;
    this.#paused = false;
    closeOsSandbox(this.#osSandbox);
    this.#osSandbox = undefined;
    await closeSandbox(sandbox).catch((error: Error) =>
      this.emit('stderr', `agentpipe: cannot remove ${sandbox.path}: ${error.message}\n`),
    );
    this.#emitLifecycle('sandbox_killed', sandbox.path);
  }

  async #settle(): Promise<void> {
    await Promise.allSettled([this.#run, ...[...this.#commands].map((c) => c.done)]);
  }

  async #ready(): Promise<Sandbox> {
    if (this.#paused) await this.resume();
    if (this.#sandbox) return this.#sandbox;
    this.#booting ??= this.#boot().finally(() => (this.#booting = undefined));
    return this.#booting;
  }

  async #boot(): Promise<Sandbox> {
    const userFolder = this.#options.cwd;
    if (userFolder === undefined) this.#emitLifecycle('sandbox_boot', null);
    try {
      this.#sandbox = await openSandbox(userFolder);
    } catch (error) {
      this.#emitLifecycle('sandbox_error', null);
      throw error;
    }
    this.#emitLifecycle(userFolder === undefined ? 'sandbox_ready' : 'sandbox_connected', this.#sandbox.path);
    return this.#sandbox;
  }

  #ensureQuery(): Query {
    if (this.#query) return this.#query;
    this.#input = new AsyncMessageQueue<PromptMessage>({ highWaterMark: 1024 });
    // The caller has the prompt: `content` does not repeat it; `event` has it as user.message.
    this.#acp = new AcpUpdateProjector({ showPrompts: false });
    this.#events = new SessionEventProjector();
    const q = query({
      prompt: this.#input,
      options: {
        ...this.#options,
        replayUserMessages: true,
        cwd: this.#sandbox!.path,
        stderr: (line) => this.emit('stderr', line.endsWith('\n') ? line : `${line}\n`),
      },
    });
    this.#query = q;
    void this.#pump(q);
    return q;
  }

  async #pump(q: Query): Promise<void> {
    try {
      for await (const message of q) this.#dispatch(message);
    } catch (error) {
      this.emit('stderr', `agentpipe: ${errorMessage(error)}\n`);
    } finally {
      if (this.#query === q) this.#query = undefined;
      this.#waiting?.(undefined);
      this.#waiting = undefined;
    }
  }

  #dispatch(message: AgentMessage): void {
    if (message.type === 'system' && message.subtype === 'init') this.#sessionId = message.session_id;
    // The prompt echoes feed the projections; the raw stream has them only when asked, as query()'s.
    if (!isPromptEcho(message) || this.#options.replayUserMessages) {
      this.emit('stdout', `${JSON.stringify(message)}\n`);
      this.emit('message', message);
    }
    for (const update of this.#acp.push(message))
      this.emit('content', { sessionId: this.#sessionId || message.session_id, update });
    for (const event of this.#events.push(message)) this.emit('event', event);
    if (message.type === 'result') {
      this.#waiting?.(message);
      this.#waiting = undefined;
    }
  }

  #emitLifecycle(reason: LifecycleReason, sandboxId: string | null = this.#sandbox?.path ?? null): void {
    this.emit('lifecycle', this.#lifecycle.transition(reason, sandboxId));
  }
}
