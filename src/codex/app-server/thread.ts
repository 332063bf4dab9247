/**
 * One app-server thread: an agentpipe session (`query()` in process, streaming input, saved as a
 * transcript like every session: the thread id is the session id) whose stream goes through the
 * shared Codex projection into v2 notifications. A turn is the prompt of turn/start plus every
 * message turn/steer queued behind it: each runs as the session's next prompt when the one before
 * it has its result, and the turn completes after the last. turn/interrupt interrupts the running
 * prompt and drops the queued ones. The thread is `idle` or `active` (`waitingOnApproval` while
 * the client is asked), changed in one place that tells the clients.
 */
import { errorMessage } from '../../process/errors.ts';
import type { AgentMessage, McpServerInfo, PermissionMode, UserContentBlock } from '../../messages/types.ts';
import type { PermissionResult } from '../../messages/control.ts';
import type { RequestId, RpcTrace } from '../../messages/json-rpc.ts';
import { newUuid } from '../../messages/ids.ts';
import { promptMessage } from '../../messages/user.ts';
import { AsyncMessageQueue } from '../../pipeline/queue.ts';
import { query } from '../../sdk/query.ts';
import type { PromptMessage, Query, QueryOptions } from '../../sdk/types.ts';
import { VERSION } from '../../version.ts';
import { CodexItemProjector } from '../projector.ts';
import { failureOf } from '../items.ts';
import { Approvals } from './approvals.ts';
import { CodexTurn, ThreadUsage, type Notify } from './turn.ts';
import { v2Thread, type ThreadInfo } from './wire.ts';

/** What a thread needs of the server: its clients. */
export interface ThreadClients {
  /** Sends a notification to every client of the thread. */
  notify: (threadId: string, method: string, params: Record<string, unknown>) => Promise<void>;
  /** Sends a request to the client that started the running turn. */
  request: (
    threadId: string,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ) => { id: RequestId; answer: Promise<unknown> };
  log: (line: string) => void;
}

/** How a thread is opened. */
export interface ThreadSetup {
  id: string;
  cwd: string;
  /** The session's options (model, permission mode, …) with `resume`/`forkSession` when it continues one. */
  options: QueryOptions;
  /** Ask the client about calls that need permission (false: they are denied). */
  ask: boolean;
  model: string;
  modelProvider: string;
  effort: string | null;
  ephemeral: boolean;
  forkedFromId: string | null;
  originator: string | null;
  /** Where the transcript is (null when ephemeral). */
  path: string | null;
  /** Turns before this process (a resumed or forked session). */
  history: CodexTurn[];
  preview: string;
  name: string | null;
  createdAt: number;
}

type ThreadStatus = { type: 'idle' } | { type: 'active'; activeFlags: string[] };

export class CodexThread {
  readonly id: string;
  readonly cwd: string;
  readonly setup: ThreadSetup;
  mode: PermissionMode;
  model: string;
  #ask: boolean;
  preview: string;
  updatedAt: number;
  #status: ThreadStatus = { type: 'idle' };
  readonly #clients: ThreadClients;
  readonly #input = new AsyncMessageQueue<PromptMessage>({ highWaterMark: 1024 });
  readonly #query: Query;
  readonly #projector: CodexItemProjector;
  readonly #usage = new ThreadUsage();
  readonly #approvals = new Approvals();
  readonly #turns: CodexTurn[];
  #turn?: CodexTurn;
  /** Prompts of the running turn waiting for the one before them (turn/steer). */
  readonly #steers: Array<string | UserContentBlock[]> = [];
  /** Tool calls the projection has shown, and who waits for one (an approval follows its item/started). */
  readonly #shown = new Set<string>();
  readonly #waitingFor = new Map<string, () => void>();
  readonly #pump: Promise<void>;

  constructor(setup: ThreadSetup, clients: ThreadClients) {
    this.id = setup.id;
    this.cwd = setup.cwd;
    this.setup = setup;
    this.mode = setup.options.permissionMode ?? 'default';
    this.model = setup.model;
    this.#ask = setup.ask;
    this.preview = setup.preview;
    this.updatedAt = setup.createdAt;
    this.#clients = clients;
    this.#turns = [...setup.history];
    this.#projector = new CodexItemProjector({ cwd: setup.cwd });
    this.#query = query({
      prompt: this.#input,
      options: {
        ...setup.options,
        cwd: setup.cwd,
        // Codex's contract, not Claude Code's: agentpipe's retries and endings unless the command line says.
        outcomePolicy: setup.options.outcomePolicy ?? 'agentpipe',
        replayUserMessages: true,
        includePartialMessages: true,
        canUseTool: (name, input, o) => this.#canUseTool(name, input, o),
      },
    });
    this.#pump = this.#run();
  }

  /** The thread as v2 `Thread`; `turns: true` with its history. */
  info(turns = false): Record<string, unknown> {
    const s = this.setup;
    const info: ThreadInfo = {
      id: this.id,
      cwd: this.cwd,
      preview: this.preview,
      name: s.name,
      model: this.model,
      modelProvider: s.modelProvider,
      reasoningEffort: s.effort,
      ephemeral: s.ephemeral,
      forkedFromId: s.forkedFromId,
      createdAt: s.createdAt,
      updatedAt: this.updatedAt,
      status: this.#status,
      path: s.path,
      cliVersion: VERSION,
      originator: s.originator,
      turns: turns ? this.#turns.map((t) => t.toV2('full')) : [],
    };
    return v2Thread(info);
  }

  get runningTurn(): CodexTurn | undefined {
    return this.#turn;
  }

  /** Applies turn/start's overrides for this turn and the next ones. */
  async configure(change: { mode?: PermissionMode; ask?: boolean; model?: string }): Promise<void> {
    if (change.mode && change.mode !== this.mode) {
      await this.#query.setPermissionMode(change.mode);
      this.mode = change.mode;
    }
    if (change.ask !== undefined) this.#ask = change.ask;
    if (change.model && change.model !== this.model) {
      await this.#query.setModel(change.model);
      this.model = change.model;
    }
  }

  /**
   * Starts a turn; its prompt is sent once the caller's response left (`setImmediate`), so the
   * client reads the turn/start response before the turn's notifications, as from codex.
   */
  startTurn(content: string | UserContentBlock[], trace?: RpcTrace): CodexTurn {
    if (this.#turn) throw new Error('a turn is already running in this thread; steer or interrupt it');
    const turn = new CodexTurn({ id: newUuid(), threadId: this.id, notify: this.#notify, usage: this.#usage });
    this.#turn = turn;
    if (!this.preview) this.preview = previewOf(content);
    setImmediate(() => void this.#begin(turn, content, trace));
    return turn;
  }

  /** Sends the turn's prompt; under the request's trace context (`_meta`, telemetry on) when it carried one. */
  async #begin(turn: CodexTurn, content: string | UserContentBlock[], trace?: RpcTrace): Promise<void> {
    await this.#setStatus({ type: 'active', activeFlags: [] });
    await this.#notify('turn/started', { threadId: this.id, turn: turn.toV2('notLoaded') });
    await this.#input.push({ ...promptMessage(content, this.id), ...(trace ? { _meta: trace } : {}) });
  }

  /** Queues a message behind the running prompt of turn `expectedTurnId` (turn/steer). */
  steer(content: string | UserContentBlock[], expectedTurnId: string): string {
    const turn = this.#turn;
    if (!turn) throw new Error('no turn is running in this thread');
    if (turn.id !== expectedTurnId) throw new Error(`the running turn is ${turn.id}, not ${expectedTurnId}`);
    this.#steers.push(content);
    return turn.id;
  }

  /** Interrupts the running turn (its queued messages are dropped); false when `turnId` is not running. */
  async interrupt(turnId: string): Promise<boolean> {
    const turn = this.#turn;
    if (!turn || turn.id !== turnId) return false;
    turn.interrupted = true;
    this.#steers.length = 0;
    await this.#query.interrupt();
    return true;
  }

  /** The session's MCP servers and their status. */
  mcpServers(): Promise<McpServerInfo[]> {
    return this.#query.mcpServerStatus();
  }

  /** Stops the session (the running prompt is interrupted; nothing more is sent). */
  async close(): Promise<void> {
    this.#input.done();
    this.#query.close();
    // #run reports its own failures on the log.
    await this.#pump.catch(() => {});
  }

  readonly #notify: Notify = (method, params) => this.#clients.notify(this.id, method, params);

  async #setStatus(status: ThreadStatus): Promise<void> {
    this.#status = status;
    await this.#notify('thread/status/changed', { threadId: this.id, status });
  }

  /** Reads the session's stream for the life of the thread. */
  async #run(): Promise<void> {
    try {
      for await (const message of this.#query) await this.#message(message);
    } catch (error) {
      this.#clients.log(`agentpipe app-server: thread ${this.id}: ${errorMessage(error)}`);
    }
    const turn = this.#turn;
    if (turn) await this.#complete(turn, 'the session ended');
  }

  async #message(message: AgentMessage): Promise<void> {
    if (message.type === 'system' && message.subtype === 'init') this.model = message.model;
    const turn = this.#turn;
    if (!turn) return;
    for (const event of this.#projector.push(message)) {
      await turn.event(event);
      if (event.type === 'started') this.#seen(event.item.id);
    }
    if (message.type !== 'result') return;
    this.updatedAt = Math.floor(Date.now() / 1000);
    const next = turn.interrupted ? undefined : this.#steers.shift();
    if (next !== undefined) {
      await this.#input.push(promptMessage(next, this.id));
      return;
    }
    await this.#complete(turn, failureOf(message));
  }

  async #complete(turn: CodexTurn, failure: string | undefined): Promise<void> {
    for (const event of this.#projector.finish()) await turn.event(event);
    const status = turn.interrupted ? 'interrupted' : failure === undefined ? 'completed' : 'failed';
    await turn.end(status, status === 'failed' ? (failure ?? null) : null);
    this.#turns.push(turn);
    this.#turn = undefined;
    this.#shown.clear();
    await this.#setStatus({ type: 'idle' });
    await this.#notify('turn/completed', { threadId: this.id, turn: turn.toV2('summary') });
  }

  #seen(itemId: string): void {
    this.#shown.add(itemId);
    this.#waitingFor.get(itemId)?.();
    this.#waitingFor.delete(itemId);
  }

  /** Resolves once the projection showed the call (its item/started goes before the approval request). */
  #shownBefore(toolUseId: string, signal: AbortSignal): Promise<void> {
    if (this.#shown.has(toolUseId) || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waitingFor.set(toolUseId, resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  async #canUseTool(
    toolName: string,
    input: Record<string, unknown>,
    o: { signal: AbortSignal; toolUseId: string; parentToolUseId: string | null; decisionReason?: string },
  ): Promise<PermissionResult> {
    if (!this.#ask) return { behavior: 'deny', message: `${toolName} needs approval and the approval policy is never` };
    const shownItem = o.parentToolUseId === null && toolName !== 'TodoWrite' && toolName !== 'StructuredOutput';
    if (shownItem) await this.#shownBefore(o.toolUseId, o.signal);
    const approval = await this.#approvals.ask(
      {
        threadId: this.id,
        turnId: this.#turn?.id ?? null,
        cwd: this.cwd,
        request: (method, params, signal) => this.#clients.request(this.id, method, params, signal),
        resolved: async (requestId) => {
          await this.#notify('serverRequest/resolved', { threadId: this.id, requestId });
          if (this.#turn) await this.#setStatus({ type: 'active', activeFlags: [] });
        },
        waiting: () => this.#setStatus({ type: 'active', activeFlags: ['waitingOnApproval'] }),
        acceptEdits: () => this.configure({ mode: 'acceptEdits' }),
      },
      toolName,
      input,
      o,
    );
    if (approval.declined) this.#projector.decline(o.toolUseId);
    if (approval.cancelled && this.#turn) {
      this.#turn.interrupted = true;
      this.#steers.length = 0;
    }
    return approval.result;
  }
}

/** The start of a prompt's text (a thread's preview). */
export function previewOf(content: string | UserContentBlock[]): string {
  const text = typeof content === 'string' ? content : (content.find((b) => b.type === 'text')?.text ?? '');
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
