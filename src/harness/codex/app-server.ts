/**
 * The Codex harness on `codex app-server`: one app-server process per session (JSON-RPC on its
 * stdin and stdout, through the peer every Codex face uses), one thread (started, or resumed by the
 * session's codex thread id), one turn per prompt (app-server-turn.ts translates it). Codex asks
 * before running what its approval policy does not allow, and agentpipe's session answers (its
 * rules and mode, then its client), so the permission modes map onto codex's approval policies as
 * well as its sandbox. An interrupt is `turn/interrupt`; codex's own `turn/completed` ends it.
 *
 * States: `idle` (not started) → `starting` → `ready` (a thread) → `closed`; `unavailable` when the
 * wrapped codex has no app-server (codex.ts then runs `codex exec` instead).
 */
import { AgentpipeError, errorMessage } from '../../process/errors.ts';
import { JsonRpcPeer, RpcError } from '../../messages/json-rpc.ts';
import type { PermissionMode, UserContentBlock } from '../../messages/types.ts';
import { VERSION } from '../../version.ts';
import { howItEnded, startCli, type CliProcess } from '../cli-process.ts';
import { TurnState } from '../turn-state.ts';
import type { Harness, HarnessConfig, HarnessOutcome, HarnessTurn } from '../types.ts';
import { AppServerTurn } from './app-server-turn.ts';
import { ThreadResponse, TurnStartResponse } from './protocol.ts';
import { PRIVATE_TEMP_OVERRIDES, providerOverrides, stderrOf } from './shared.ts';

/** How long codex has to answer `initialize` and thread/start or thread/resume. */
const START_TIMEOUT_MS = 30_000;
/** After turn/interrupt, how long codex has to end the turn before the process is stopped. */
const INTERRUPT_GRACE_MS = 3_000;

/** The wrapped codex has no app-server (or it failed before answering `initialize`). */
export class AppServerUnavailable extends AgentpipeError {
  static override readonly errorName: string = 'AppServerUnavailable';
}

/** Codex's sandbox and approval policy for a permission mode: codex asks, agentpipe's session answers. */
export function codexThreadPermissions(mode: PermissionMode): { sandbox: string; approvalPolicy: string } {
  switch (mode) {
    case 'bypassPermissions':
      return { sandbox: 'danger-full-access', approvalPolicy: 'never' };
    case 'acceptEdits':
      return { sandbox: 'workspace-write', approvalPolicy: 'on-request' };
    case 'default':
      return { sandbox: 'read-only', approvalPolicy: 'untrusted' };
    case 'plan':
    case 'dontAsk':
      return { sandbox: 'read-only', approvalPolicy: 'never' };
  }
}

/** codex's `sandboxPolicy` (turn/start) of a sandbox mode. */
function sandboxPolicy(sandbox: string): Record<string, unknown> {
  if (sandbox === 'danger-full-access') return { type: 'dangerFullAccess' };
  if (sandbox === 'workspace-write')
    return { type: 'workspaceWrite', writableRoots: [], networkAccess: false, excludeSlashTmp: true };
  return { type: 'readOnly', networkAccess: false };
}

type Status = 'idle' | 'starting' | 'ready' | 'unavailable' | 'closed';

export class CodexAppServerHarness implements Harness {
  readonly name = 'codex' as const;
  readonly config: HarnessConfig;
  readonly sessionId: string;
  #status: Status = 'idle';
  #starting?: Promise<void>;
  #threadId: string | undefined;
  #model: string;
  #process?: CliProcess;
  #peer?: JsonRpcPeer;
  #turn?: AppServerTurn;
  /** Resolves when codex's stdout ended. */
  #reading?: Promise<void>;

  constructor(config: HarnessConfig, sessionId: string) {
    this.config = config;
    this.sessionId = sessionId;
    this.#threadId = config.resumeNativeId;
    this.#model = config.model ?? 'codex';
  }

  get nativeSessionId(): string | undefined {
    return this.#threadId;
  }

  configure(change: { model?: string; permissionMode?: PermissionMode }): void {
    Object.assign(this.config, change);
    if (change.model) this.#model = change.model;
  }

  /** Starts codex's app-server and its thread; throws AppServerUnavailable when there is none to talk to. */
  start(): Promise<void> {
    // One start at a time: a caller while it runs waits for the same one (starting the sandbox is asynchronous).
    if (this.#status !== 'idle') return this.#starting ?? Promise.resolve();
    this.#status = 'starting';
    return (this.#starting = this.#start().finally(() => (this.#starting = undefined)));
  }

  async #start(): Promise<void> {
    const c = this.config;
    // In the session's sandbox, as every CLI agentpipe wraps.
    const argv = [...c.command, 'app-server', ...PRIVATE_TEMP_OVERRIDES, ...providerOverrides(c.baseUrl, c.env)];
    const proc = await startCli({ argv, cwd: c.cwd, env: c.env, idleMs: c.idleMs }, c);
    this.#process = proc;
    const peer = new JsonRpcPeer({
      send: async (frame) => {
        if (!(await proc.write(frame))) throw new Error('codex app-server is gone');
      },
      onRequest: (method, params) => this.#serverRequest(method, params),
      onNotification: (method, params) => this.#turn?.notification(method, params),
      queueLimit: Number.POSITIVE_INFINITY,
      // Before `initialize` is answered, what codex prints may be a codex without an app-server: not reported.
      log: (line) => {
        if (this.#status !== 'starting') c.warn(`harness codex: ${line}`);
      },
    });
    this.#peer = peer;
    this.#reading = this.#read(proc, peer);
    try {
      await this.#timed(
        peer.request('initialize', {
          clientInfo: { name: 'agentpipe', title: 'agentpipe', version: VERSION },
          capabilities: null,
        }),
      );
    } catch (error) {
      this.#status = 'unavailable';
      proc.stop();
      const exit = await proc.done;
      const tail = stderrOf(exit.stderr);
      const how = exit.code === null && !exit.error ? 'did not answer' : howItEnded(exit);
      throw new AppServerUnavailable(`codex app-server ${how}${tail ? `: ${tail}` : ''} (${errorMessage(error)})`);
    }
    await peer.notify('initialized', undefined);
    const permissions = codexThreadPermissions(c.permissionMode);
    const settings = {
      cwd: c.cwd,
      ...(c.model ? { model: c.model } : {}),
      ...permissions,
      ...(c.systemPrompt !== undefined ? { baseInstructions: c.systemPrompt } : {}),
      ...(c.appendSystemPrompt ? { developerInstructions: c.appendSystemPrompt } : {}),
    };
    const answer = this.#threadId
      ? await this.#timed(peer.request('thread/resume', { threadId: this.#threadId, ...settings, excludeTurns: true }))
      : await this.#timed(peer.request('thread/start', settings));
    const thread = ThreadResponse.parse(answer);
    this.#threadId = thread.thread.id;
    this.#model = c.model ?? thread.model;
    this.#status = 'ready';
  }

  #timed<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      timer.unref();
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  /** Reads codex's stdout into the peer until it ends; then the running turn fails. */
  async #read(proc: CliProcess, peer: JsonRpcPeer): Promise<void> {
    for await (const line of proc.lines()) {
      if (line.ok) peer.receive(line.value);
      else if (this.#status !== 'starting')
        this.config.warn(
          `harness codex: ignored a line of codex app-server (${line.error}: ${line.text.slice(0, 80)})`,
        );
    }
    const exit = await proc.done;
    const tail = stderrOf(exit.stderr);
    peer.close(`codex app-server ${howItEnded(exit)}${tail ? `: ${tail}` : ''}`);
    // It went away (a crash, or silent past AGENTPIPE_HARNESS_IDLE_MS): the next prompt starts it again on the thread.
    if (this.#process === proc && this.#status !== 'closed') {
      this.#status = 'idle';
      this.#process = undefined;
    }
    const turn = this.#turn;
    if (turn) {
      await turn.closeOpen();
      turn.finish(
        turn.state.failure([
          `codex app-server ${howItEnded(exit)} before its turn completed${tail ? `: ${tail}` : ''}`,
        ]),
      );
    }
  }

  async #serverRequest(method: string, params: unknown): Promise<unknown> {
    const turn = this.#turn;
    switch (method) {
      case 'item/commandExecution/requestApproval':
        return turn ? turn.commandApproval(params) : { decision: 'decline' };
      case 'item/fileChange/requestApproval':
        return turn ? turn.fileChangeApproval(params) : { decision: 'decline' };
      case 'mcpServer/elicitation/request':
        this.config.warn(
          'harness codex: an MCP server asked for input; declined (agentpipe does not relay elicitations)',
        );
        return { action: 'decline', content: null, _meta: null };
      default:
        throw RpcError.methodNotFound(method);
    }
  }

  async run(turn: HarnessTurn): Promise<HarnessOutcome> {
    const state = new TurnState(turn, this.config, this.sessionId);
    try {
      await this.start();
    } catch (error) {
      if (AppServerUnavailable.isInstance(error)) throw error;
      return state.failure([`codex app-server: ${errorMessage(error)}`]);
    }
    if (turn.signal.aborted) return state.interrupted();
    await state.init({
      nativeSessionId: this.#threadId,
      model: this.#model,
      cwd: this.config.cwd,
      permissionMode: this.config.permissionMode,
    });
    const t = new AppServerTurn(state, turn, this.#model);
    this.#turn = t;
    const onAbort = () => void this.#interrupt(t);
    turn.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const permissions = codexThreadPermissions(this.config.permissionMode);
      const started = await this.#peer!.request('turn/start', {
        threadId: this.#threadId,
        input: inputOf(turn.prompt),
        ...(this.config.model ? { model: this.config.model } : {}),
        approvalPolicy: permissions.approvalPolicy,
        sandboxPolicy: sandboxPolicy(permissions.sandbox),
      });
      t.setTurnId(TurnStartResponse.parse(started).turn.id);
      const outcome = await t.outcome;
      this.#turn = undefined;
      // codex leaves the commands of an interrupted turn running (as background terminals): they end with its process,
      // and the next prompt starts it again on the same thread.
      if (turn.signal.aborted) await this.#stopProcess();
      return outcome;
    } catch (error) {
      await t.closeOpen();
      return state.failure([`codex app-server: ${errorMessage(error)}`]);
    } finally {
      turn.signal.removeEventListener('abort', onAbort);
      this.#turn = undefined;
    }
  }

  /** turn/steer: the message joins the running turn (codex gives it to the model at its next request). */
  async steer(prompt: string | UserContentBlock[]): Promise<boolean> {
    const t = this.#turn;
    if (!t?.turnId || !this.#peer) return false;
    try {
      await this.#peer.request('turn/steer', {
        threadId: this.#threadId,
        input: inputOf(prompt),
        expectedTurnId: t.turnId,
      });
      return true;
    } catch (error) {
      this.config.warn(`harness codex: turn/steer was refused (${errorMessage(error)}); the message waits its turn`);
      return false;
    }
  }

  /** turn/interrupt; codex's turn/completed ends the prompt, or the process is stopped after a grace period. */
  async #interrupt(t: AppServerTurn): Promise<void> {
    const timer = setTimeout(() => {
      this.config.warn('harness codex: codex did not end the interrupted turn; stopping it');
      this.#process?.stop();
    }, INTERRUPT_GRACE_MS);
    timer.unref();
    void t.outcome.finally(() => clearTimeout(timer));
    // turn/start may not have answered yet: the turn is interrupted as soon as it has an id.
    const turnId = t.turnId ?? (await t.idKnown);
    // Refused or gone: the grace timer above stops the process.
    await this.#peer?.request('turn/interrupt', { threadId: this.#threadId, turnId }).catch(() => {});
  }

  /** Stops codex's process (its commands end with it); the next prompt starts it again on the same thread. */
  async #stopProcess(): Promise<void> {
    const proc = this.#process;
    if (!proc) return;
    this.#status = 'idle';
    this.#process = undefined;
    proc.stop();
    await proc.done;
    await this.#reading;
  }

  async close(): Promise<void> {
    if (this.#status === 'closed') return;
    this.#status = 'closed';
    const proc = this.#process;
    if (!proc) return;
    proc.endInput();
    const stopped = setTimeout(() => proc.stop(), 2000);
    stopped.unref();
    await proc.done;
    clearTimeout(stopped);
    await this.#reading;
  }
}

/** A prompt as codex's `UserInput`: its text; images are written by the session's caller as data URLs. */
function inputOf(prompt: string | UserContentBlock[]): Record<string, unknown>[] {
  if (typeof prompt === 'string') return [{ type: 'text', text: prompt, text_elements: [] }];
  return prompt.flatMap((block): Record<string, unknown>[] => {
    if (block.type === 'text') return [{ type: 'text', text: block.text, text_elements: [] }];
    if (block.type === 'image')
      return [{ type: 'image', url: `data:${block.source.media_type};base64,${block.source.data}` }];
    return [];
  });
}
