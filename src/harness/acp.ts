/**
 * The ACP harness: agentpipe as an Agent Client Protocol client of any agent that speaks it over
 * stdio (`--harness acp --harness-command "goose acp"`). The agent is started once, in its own
 * process group; each prompt is one `session/prompt`, and its `session/update` notifications are
 * translated into the message stream: the inverse of the ACP projection (sdk/acp-updates.ts), so
 * `agentpipe acp` behind this harness round-trips. Permission requests go to the session's client
 * (`askPermission`); `fs/*` is served inside the cwd only, `terminal/*` with process groups.
 */
import { mkdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import * as acp from '@agentclientprotocol/sdk';
import type {
  ClientConnection,
  ContentBlock,
  PlanEntry,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionModeState,
  SessionNotification,
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { AssistantContentBlock, PermissionMode, StreamEvent } from '../messages/types.ts';
import type { PermissionResult } from '../messages/control.ts';
import { newApiId, newUuid } from '../messages/ids.ts';
import { toolUseError } from '../messages/notices.ts';
import { startProcessGroup, type RunningGroup } from '../process/run.ts';
import { defaultSandbox } from '../sandbox/config.ts';
import { confineCli } from './confine.ts';
import { editResultOf, writeResultOf } from '../tools/file-patch.ts';
import { writeTextNoFollow } from '../tools/file-write.ts';
import { protectedReason } from '../tools/protected-paths.ts';
import { isWholeToolRule, parseRules, type PermissionRule } from '../tools/permission-rules.ts';
import { readDeniedFor } from '../tools/permissions.ts';
import { VERSION } from '../version.ts';
import { TurnState } from './turn-state.ts';
import { todoWriteAnswer } from '../tools/builtin/todo-write.ts';
import { MAX_LINE_CHARS } from './cli-process.ts';
import type { Harness, HarnessConfig, HarnessOutcome, HarnessTurn } from './types.ts';

/** How long the agent has to answer `initialize` (a hung or wrong command fails within this). */
export const INIT_TIMEOUT_MS = 10_000;
/** How long the agent has to answer session/new, session/load and the session settings. */
export const SESSION_TIMEOUT_MS = 60_000;
/** After `session/cancel`, how long the prompt may take to end before the agent is stopped. */
export const CANCEL_GRACE_MS = 2_000;
/** SIGTERM → SIGKILL grace of the agent and of terminals. */
const STOP_GRACE_MS = 2_000;
/** Characters of the agent's stderr kept for error messages. */
const STDERR_TAIL_CHARS = 4_000;
/** Output kept per terminal when the agent sets no `outputByteLimit`. */
const TERMINAL_OUTPUT_BYTES = 1024 * 1024;

const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk'];

/** A failure to report as the prompt's outcome (never thrown out of `run`). */
class AgentError extends Error {
  override name = 'AgentError';
}
/** The prompt was interrupted. */
class Aborted extends Error {
  override name = 'Aborted';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const errorText = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const data = (error as { data?: unknown }).data;
  const detail = data === undefined ? '' : `: ${JSON.stringify(data).slice(0, 500)}`;
  return `${error.message}${detail}`;
};
/** Settles after the microtasks queued so far (the SDK dispatches a message through several awaits). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Lines of the agent's stdout that are JSON pass on; the others are reported and dropped. */
function jsonLines(onGarbage: (line: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  const pass = (line: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    const text = line.trim();
    if (!text) return;
    try {
      JSON.parse(text);
    } catch {
      onGarbage(text.slice(0, 200));
      return;
    }
    controller.enqueue(encoder.encode(`${text}\n`));
  };
  // A line longer than MAX_LINE_CHARS is reported and skipped to its end, never held.
  let skipping = false;
  return new TransformStream({
    transform(chunk, controller) {
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        if (skipping) skipping = false;
        else pass(pending + text.slice(start, nl), controller);
        pending = '';
        start = nl + 1;
      }
      if (skipping) return;
      pending += text.slice(start);
      if (pending.length > MAX_LINE_CHARS) {
        onGarbage(`a line longer than ${MAX_LINE_CHARS} characters: ${pending.slice(0, 100)}`);
        pending = '';
        skipping = true;
      }
    },
    flush(controller) {
      if (!skipping) pass(pending + decoder.decode(), controller);
    },
  });
}

/** What the client side of the connection hands to the harness. */
interface ClientHandlers {
  update(params: SessionNotification): void;
  permission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  readFile(params: {
    sessionId: string;
    path: string;
    line?: number | null;
    limit?: number | null;
  }): Promise<{ content: string }>;
  writeFile(params: { sessionId: string; path: string; content: string }): Promise<Record<string, never>>;
  terminals: Terminals;
}

/** The running agent: its process group and the ACP connection over its stdio. */
class AgentLink {
  readonly group: RunningGroup;
  readonly connection: ClientConnection;
  /** Resolves with why the agent is gone (exit, closed output, not an ACP agent). */
  readonly gone: Promise<string>;
  initialized = false;
  #stderr = '';
  #exited = false;
  #reportGone: (why: string) => void = () => {};

  constructor(config: HarnessConfig, handlers: ClientHandlers) {
    this.gone = new Promise((resolve) => (this.#reportGone = resolve));
    this.group = startProcessGroup({
      command: config.command,
      cwd: config.cwd,
      env: config.env,
      interactive: true,
      graceMs: STOP_GRACE_MS,
      cap: 0,
      onOutput: (stream, chunk) => {
        if (stream === 'stderr') this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_CHARS);
      },
    });
    void this.group.done.then((result) => {
      this.#exited = true;
      const how = result.error
        ? `could not be started (${result.error.message})`
        : result.exitSignal
          ? `was killed by ${result.exitSignal}`
          : `exited with code ${result.code}`;
      this.#reportGone(this.#withStderr(`the ACP agent (${config.command.join(' ')}) ${how}`));
    });
    const input = Readable.toWeb(this.group.output!) as ReadableStream<Uint8Array>;
    const lines = input.pipeThrough(
      jsonLines((line) => {
        config.warn(`harness acp: the agent printed a line that is not JSON: ${line}`);
        // Before initialize is answered, output that is not JSON-RPC means this is not an ACP agent.
        if (!this.initialized)
          this.#reportGone(
            this.#withStderr(`the command is not an ACP agent: it printed ${JSON.stringify(line)} instead of JSON-RPC`),
          );
      }),
    );
    const stream = acp.ndJsonStream(Writable.toWeb(this.group.input!) as WritableStream<Uint8Array>, lines);
    const app = acp
      .client({ name: 'agentpipe' })
      .onNotification('session/update', ({ params }) => handlers.update(params))
      .onRequest('session/request_permission', ({ params, signal }) => handlers.permission(params, signal))
      .onRequest('fs/read_text_file', ({ params }) => handlers.readFile(params))
      .onRequest('fs/write_text_file', ({ params }) => handlers.writeFile(params))
      .onRequest('terminal/create', ({ params }) => handlers.terminals.create(params))
      .onRequest('terminal/output', ({ params }) => handlers.terminals.output(params.terminalId))
      .onRequest('terminal/wait_for_exit', ({ params }) => handlers.terminals.waitForExit(params.terminalId))
      .onRequest('terminal/kill', ({ params }) => handlers.terminals.kill(params.terminalId))
      .onRequest('terminal/release', ({ params }) => handlers.terminals.release(params.terminalId));
    this.connection = app.connect(stream);
    // The exit status says more than the closed output: wait a moment for it.
    const closed = () =>
      Promise.race([this.group.done, sleep(1000, undefined, { ref: false })]).then(() =>
        this.#reportGone(this.#withStderr('the ACP agent closed its output')),
      );
    void this.connection.closed.then(closed, closed);
  }

  get exited(): boolean {
    return this.#exited;
  }

  get agent(): ClientConnection['agent'] {
    return this.connection.agent;
  }

  /** `request`, or an AgentError (failed, agent gone, no answer in `timeoutMs`), or Aborted. */
  async call<T>(what: string, request: Promise<T>, o: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    const stop = new AbortController();
    const failed = request.catch(async (error: unknown) => {
      // A closed connection rejects every request: the exit status says more.
      if (this.connection.signal.aborted) {
        throw new AgentError(
          `${await Promise.race([this.gone, sleep(1000, errorText(error), { ref: false })])} (during ${what})`,
        );
      }
      throw new AgentError(`${what} failed: ${errorText(error)}`);
    });
    const waits: Array<Promise<never>> = [
      this.gone.then((why) => Promise.reject(new AgentError(`${why} (during ${what})`))),
    ];
    if (o.timeoutMs !== undefined) {
      const seconds = o.timeoutMs / 1000;
      waits.push(
        sleep(o.timeoutMs, undefined, { signal: stop.signal, ref: false }).then(
          () =>
            Promise.reject(
              new AgentError(this.#withStderr(`the ACP agent did not answer ${what} within ${seconds} s`)),
            ),
          () => new Promise<never>(() => {}),
        ),
      );
    }
    if (o.signal) {
      const signal = o.signal;
      waits.push(
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(new Aborted());
          signal.addEventListener('abort', () => reject(new Aborted()), { once: true, signal: stop.signal });
        }),
      );
    }
    try {
      return await Promise.race([failed, ...waits]);
    } finally {
      stop.abort();
    }
  }

  /** SIGTERM to the group (SIGKILL after the grace period), the connection closed. */
  stop(): void {
    this.group.input?.end();
    if (!this.#exited) this.group.stop('aborted');
    this.connection.close();
  }

  #withStderr(message: string): string {
    const tail = this.#stderr.trim().split('\n').slice(-5).join('\n');
    return tail ? `${message}; stderr: ${tail}` : message;
  }
}

/** One command the agent runs through `terminal/create`. */
interface Terminal {
  group: RunningGroup;
  output: string;
  truncated: boolean;
  limit: number;
  exit?: { exitCode: number | null; signal: string | null };
  done: Promise<{ exitCode: number | null; signal: string | null }>;
}

/** The last `limit` bytes of `text`, cut at a character boundary. */
function tailBytes(text: string, limit: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= limit) return text;
  let start = buffer.length - limit;
  while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++;
  return buffer.subarray(start).toString('utf8');
}

/** The agent's terminals (`terminal/*`): process groups with their output, stdout and stderr together. */
class Terminals {
  readonly #all = new Map<string, Terminal>();
  readonly #config: HarnessConfig;
  #next = 0;

  constructor(config: HarnessConfig) {
    this.#config = config;
  }

  async create(params: {
    command: string;
    args?: string[];
    env?: Array<{ name: string; value: string }>;
    cwd?: string | null;
    outputByteLimit?: number | null;
  }): Promise<{ terminalId: string }> {
    const env = { ...this.#config.env };
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const cwd = params.cwd ? path.resolve(this.#config.cwd, params.cwd) : this.#config.cwd;
    const limit = params.outputByteLimit ?? TERMINAL_OUTPUT_BYTES;
    const terminal: Terminal = { output: '', truncated: false, limit } as Terminal;
    // The agent's commands run in the session's sandbox too (workspace profile: the agent was allowed to run them).
    const { startSandboxed } = await import('../sandbox/run.ts');
    terminal.group = await startSandboxed(this.#config.sandbox ?? defaultSandbox(this.#config.cwd), {
      profile: 'workspace',
      // Without arguments the command is a shell line (agents send both forms).
      command: params.args?.length ? [params.command, ...params.args] : params.command,
      cwd,
      env,
      cap: 0,
      graceMs: STOP_GRACE_MS,
      onOutput: (_stream, chunk) => {
        terminal.output += chunk;
        if (terminal.output.length > terminal.limit) {
          const kept = tailBytes(terminal.output, terminal.limit);
          if (kept !== terminal.output) terminal.truncated = true;
          terminal.output = kept;
        }
      },
    });
    terminal.done = terminal.group.done.then((result) => {
      terminal.exit = { exitCode: result.code ?? (result.error ? 127 : null), signal: result.exitSignal };
      if (result.error) terminal.output += `${result.error.message}\n`;
      return terminal.exit;
    });
    const terminalId = `term_${++this.#next}`;
    this.#all.set(terminalId, terminal);
    return { terminalId };
  }

  async output(
    terminalId: string,
  ): Promise<{ output: string; truncated: boolean; exitStatus?: { exitCode: number | null; signal: string | null } }> {
    const terminal = this.#find(terminalId);
    return {
      output: terminal.output,
      truncated: terminal.truncated,
      ...(terminal.exit ? { exitStatus: terminal.exit } : {}),
    };
  }

  async waitForExit(terminalId: string): Promise<{ exitCode: number | null; signal: string | null }> {
    return this.#find(terminalId).done;
  }

  async kill(terminalId: string): Promise<Record<string, never>> {
    const terminal = this.#find(terminalId);
    if (!terminal.exit) terminal.group.stop('aborted');
    return {};
  }

  async release(terminalId: string): Promise<Record<string, never>> {
    const terminal = this.#find(terminalId);
    if (!terminal.exit) terminal.group.stop('aborted');
    this.#all.delete(terminalId);
    return {};
  }

  /** The output of a terminal a tool call shows (undefined once released). */
  textOf(terminalId: string): string | undefined {
    return this.#all.get(terminalId)?.output;
  }

  /** Stops every terminal (the agent is gone or the harness closes). */
  stopAll(): void {
    for (const terminal of this.#all.values()) if (!terminal.exit) terminal.group.stop('aborted');
    this.#all.clear();
  }

  #find(terminalId: string): Terminal {
    const terminal = this.#all.get(terminalId);
    if (!terminal) throw acp.RequestError.resourceNotFound(terminalId);
    return terminal;
  }
}

/** A tool call of the agent as it is known so far (tool_call, then its updates merged in). */
interface ToolState {
  id: string;
  title: string;
  name?: string;
  kind?: ToolKind;
  status?: string;
  rawInput?: unknown;
  rawOutput?: unknown;
  content: ToolCallContent[];
  locations: ToolCallLocation[];
  /** The tool_use emitted for it. */
  use?: { name: string; input: Record<string, unknown> };
  done: boolean;
  progress?: string;
  started: number;
}

/** Our tools, by the first word of an ACP title (`Read src/a.ts`, as sdk/tool-info.ts titles them). */
const TITLED_TOOLS = new Set([
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'Glob',
  'Grep',
  'LS',
  'WebFetch',
  'WebSearch',
  'Task',
]);

/** Our tool name and input for an ACP tool call: the inverse of sdk/tool-info.ts where the call is one of ours. */
export function toolOf(call: {
  title: string;
  name?: string;
  kind?: ToolKind;
  rawInput?: unknown;
  content?: ToolCallContent[];
  locations?: ToolCallLocation[];
}): { name: string; input: Record<string, unknown> } {
  const input: Record<string, unknown> = isRecord(call.rawInput) ? { ...call.rawInput } : {};
  if (call.name) return { name: call.name, input };
  const title = call.title.trim();
  const first = /^(\w+)(?:\s|$)/.exec(title)?.[1];
  const file = str(input.file_path) ?? str(input.filePath) ?? str(input.path) ?? call.locations?.[0]?.path;
  const diff = call.content?.find((c) => c.type === 'diff');
  switch (call.kind) {
    case 'execute': {
      const command =
        str(input.command) ??
        (Array.isArray(input.command) ? input.command.map(String).join(' ') : undefined) ??
        /^`([^`]+)`$/.exec(title)?.[1];
      if (command !== undefined) return { name: 'Bash', input: { ...input, command } };
      break;
    }
    case 'edit':
      if (typeof input.file_path === 'string' && typeof input.content === 'string') return { name: 'Write', input };
      if (typeof input.file_path === 'string' && typeof input.new_string === 'string') return { name: 'Edit', input };
      if (typeof input.file_path === 'string' && Array.isArray(input.edits)) return { name: 'MultiEdit', input };
      if (diff) {
        const base = { ...input, file_path: diff.path };
        if (diff.oldText == null) return { name: 'Write', input: { ...base, content: diff.newText } };
        return { name: 'Edit', input: { ...base, old_string: diff.oldText, new_string: diff.newText } };
      }
      break;
    case 'read':
      if (file && (!first || !TITLED_TOOLS.has(first) || first === 'Read'))
        return { name: 'Read', input: { ...input, file_path: file } };
      break;
    case 'fetch':
      if (typeof input.url === 'string') return { name: 'WebFetch', input };
      if (typeof input.query === 'string') return { name: 'WebSearch', input };
      break;
    case 'search':
      if (typeof input.pattern === 'string') return { name: title.startsWith('Find ') ? 'Glob' : 'Grep', input };
      break;
    default:
      break;
  }
  if (first && TITLED_TOOLS.has(first)) return { name: first, input };
  // `server: tool` is how MCP tools are titled.
  const mcp = call.kind === 'other' || call.kind === undefined ? /^([\w-]+): ([\w-]+)$/.exec(title) : null;
  if (mcp) return { name: `mcp__${mcp[1]}__${mcp[2]}`, input };
  return { name: title.slice(0, 200) || 'tool', input };
}

/** Translates one prompt's session/update notifications into messages, in order. */
class PromptTranslator {
  readonly state: TurnState;
  /** Aborts on the turn's abort, or when a permission answer asks to interrupt. */
  readonly interrupt = new AbortController();
  readonly #model: string;
  readonly #terminals: Terminals;
  readonly #harness: AcpHarness;
  #chain: Promise<void> = Promise.resolve();
  #error: unknown;
  #text?: { id: string; messageId?: string | null; blocks: Array<{ kind: 'text' | 'thinking'; text: string }> };
  readonly #tools = new Map<string, ToolState>();

  constructor(state: TurnState, model: string, terminals: Terminals, harness: AcpHarness) {
    this.state = state;
    this.#model = model;
    this.#terminals = terminals;
    this.#harness = harness;
  }

  /** Queues work after everything queued before (notification handlers run concurrently). */
  enqueue(work: () => Promise<void>): Promise<void> {
    this.#chain = this.#chain.then(work).catch((error: unknown) => {
      this.#error ??= error;
    });
    return this.#chain;
  }

  /** Waits for every update received so far to be emitted; throws what emitting threw. */
  async drain(): Promise<void> {
    let chain: Promise<void>;
    do {
      await settle();
      chain = this.#chain;
      await chain;
    } while (chain !== this.#chain);
    if (this.#error !== undefined) throw this.#error instanceof Error ? this.#error : new Error(errorText(this.#error));
  }

  /** Ends the prompt's messages: the text in progress, and the tool calls never shown. */
  async finish(): Promise<void> {
    await this.enqueue(async () => {
      await this.#endText();
      for (const tool of this.#tools.values()) if (!tool.use) await this.#emitUse(tool);
    });
    await this.drain();
  }

  update(update: SessionUpdate): void {
    void this.enqueue(() => this.#apply(update));
  }

  /** The tool a permission request is about, its tool_use emitted first. */
  async permissionTool(call: ToolCallUpdate): Promise<{ id: string; name: string; input: Record<string, unknown> }> {
    let found: ToolState | undefined;
    await this.enqueue(async () => {
      const tool = this.#merge(call);
      if (!tool.use) await this.#emitUse(tool);
      found = tool;
    });
    if (!found?.use) throw new Error('the tool call could not be shown');
    return { id: found.id, ...found.use };
  }

  async #apply(update: SessionUpdate): Promise<void> {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        const text = chunkText(update.content);
        if (text)
          await this.#append(
            update.sessionUpdate === 'agent_message_chunk' ? 'text' : 'thinking',
            text,
            update.messageId,
          );
        return;
      }
      case 'tool_call':
      case 'tool_call_update':
        return this.#progress(this.#merge(update));
      case 'plan':
        return this.#plan(update.entries);
      case 'usage_update':
        this.#harness.reportCost(update.cost);
        return;
      case 'current_mode_update': {
        const mode = PERMISSION_MODES.find((m) => m === update.currentModeId);
        if (!mode) return;
        await this.state.emit({
          type: 'system',
          subtype: 'status',
          status: null,
          permissionMode: mode,
          session_id: this.state.sessionId,
          uuid: newUuid(),
        });
        return;
      }
      case 'notice':
        this.state.config.warn(
          `harness acp: agent notice (${update.severity}): ` +
            `${update.title}${update.description ? `: ${update.description}` : ''}`,
        );
        return;
      // The prompt is ours already; the rest has no message.
      case 'user_message_chunk':
      case 'available_commands_update':
      case 'config_option_update':
      case 'session_info_update':
      case 'compaction_update':
      case 'compaction_summary_chunk':
        return;
      default:
        this.state.unknown('session/update', (update as { sessionUpdate?: unknown }).sessionUpdate as string);
    }
  }

  async #append(kind: 'text' | 'thinking', text: string, messageId: string | null | undefined): Promise<void> {
    if (this.#text && messageId && this.#text.messageId && messageId !== this.#text.messageId) await this.#endText();
    const partial = this.state.config.includePartialMessages;
    if (!this.#text) {
      const start = this.state.assistant([], this.#model).message;
      this.#text = { id: start.id, messageId, blocks: [] };
      if (partial) await this.state.streamEvent({ type: 'message_start', message: start });
    }
    const run = this.#text;
    let block = run.blocks.at(-1);
    if (!block || block.kind !== kind) {
      if (block && partial) await this.state.streamEvent({ type: 'content_block_stop', index: run.blocks.length - 1 });
      run.blocks.push((block = { kind, text: '' }));
      const content: AssistantContentBlock =
        kind === 'text'
          ? { type: 'text', text: '', citations: null }
          : { type: 'thinking', thinking: '', signature: '' };
      if (partial)
        await this.state.streamEvent({
          type: 'content_block_start',
          index: run.blocks.length - 1,
          content_block: content,
        });
    }
    block.text += text;
    if (partial) {
      const delta =
        kind === 'text'
          ? { type: 'text_delta' as const, text }
          : { type: 'thinking_delta' as const, thinking: text, estimated_tokens: null };
      await this.state.streamEvent({ type: 'content_block_delta', index: run.blocks.length - 1, delta });
    }
  }

  /** The text in progress as its assistant messages (one per block, the stream's message id). */
  async #endText(): Promise<void> {
    const run = this.#text;
    if (!run) return;
    this.#text = undefined;
    if (this.state.config.includePartialMessages && run.blocks.length) {
      const events: StreamEvent[] = [
        { type: 'content_block_stop', index: run.blocks.length - 1 },
        { type: 'message_stop' },
      ];
      for (const event of events) await this.state.streamEvent(event);
    }
    for (const block of run.blocks) {
      const content: AssistantContentBlock =
        block.kind === 'text'
          ? { type: 'text', text: block.text, citations: null }
          : { type: 'thinking', thinking: block.text, signature: '' };
      const message = this.state.assistant([content], this.#model);
      message.message.id = run.id;
      await this.state.emit(message);
    }
  }

  #merge(update: ToolCallUpdate & { title?: string | null }): ToolState {
    let tool = this.#tools.get(update.toolCallId);
    if (!tool) {
      tool = { id: update.toolCallId, title: '', content: [], locations: [], done: false, started: Date.now() };
      this.#tools.set(update.toolCallId, tool);
    }
    if (update.title) tool.title = update.title;
    if (update.name) tool.name = update.name;
    if (update.kind) tool.kind = update.kind;
    if (update.status) tool.status = update.status;
    if (update.rawInput !== undefined && update.rawInput !== null) tool.rawInput = update.rawInput;
    if (update.rawOutput !== undefined && update.rawOutput !== null) tool.rawOutput = update.rawOutput;
    if (update.content) tool.content = update.content;
    if (update.locations) tool.locations = update.locations;
    return tool;
  }

  /** Shows a tool call once its input is known (or it runs), then its progress and its one result. */
  async #progress(tool: ToolState): Promise<void> {
    if (tool.done) return;
    const started = tool.status === 'in_progress' || tool.status === 'completed' || tool.status === 'failed';
    const known =
      (isRecord(tool.rawInput) && Object.keys(tool.rawInput).length > 0) || tool.content.some((c) => c.type === 'diff');
    if (!tool.use && (started || known)) await this.#emitUse(tool);
    if (!tool.use) return;
    if (tool.status === 'completed' || tool.status === 'failed') return this.#emitResult(tool);
    const output = this.#text_(tool);
    if (tool.status === 'in_progress' && output && output !== tool.progress) {
      tool.progress = output;
      await this.state.emit({
        type: 'tool_progress',
        tool_use_id: tool.id,
        tool_name: tool.use.name,
        parent_tool_use_id: null,
        elapsed_time_seconds: Math.round((Date.now() - tool.started) / 1000),
        output,
        session_id: this.state.sessionId,
        uuid: newUuid(),
      });
    }
  }

  async #emitUse(tool: ToolState): Promise<void> {
    await this.#endText();
    tool.use = toolOf({ ...tool, title: tool.title || tool.id });
    await this.state.emit(
      this.state.assistant(
        [{ type: 'tool_use', id: tool.id, name: tool.use.name, input: tool.use.input }],
        this.#model,
      ),
    );
  }

  async #emitResult(tool: ToolState): Promise<void> {
    tool.done = true;
    const failed = tool.status === 'failed';
    const text = this.#text_(tool) || outputText(tool.rawOutput);
    const structured = failed ? undefined : await structuredResult(tool);
    const content = failed ? toolUseError(text || 'The tool call failed') : text;
    await this.state.emit(this.state.toolResult(tool.id, content, failed, structured));
  }

  /** The text a tool call shows: its content blocks and the output of its terminals. */
  #text_(tool: ToolState): string {
    const parts: string[] = [];
    for (const item of tool.content) {
      if (item.type === 'content') parts.push(chunkText(item.content));
      else if (item.type === 'terminal') parts.push(this.#terminals.textOf(item.terminalId) ?? '');
    }
    return parts.filter(Boolean).join('\n');
  }

  #lastTodos: Array<Record<string, unknown>> = [];

  /** A plan as TodoWrite (the ACP projection shows TodoWrite as a plan). */
  async #plan(entries: PlanEntry[]): Promise<void> {
    await this.#endText();
    const id = newApiId('toolu');
    const todos = entries.map((e) => ({
      content: e.content,
      status: e.status,
      activeForm: e.content,
      priority: e.priority,
    }));
    await this.state.emit(
      this.state.assistant([{ type: 'tool_use', id, name: 'TodoWrite', input: { todos } }], this.#model),
    );
    await this.state.emit(
      this.state.toolResult(id, todoWriteAnswer, false, { oldTodos: this.#lastTodos, newTodos: todos }),
    );
    this.#lastTodos = todos;
  }
}

/** The text of a content block (links as links; images and audio have none). */
function chunkText(block: ContentBlock): string {
  if (block.type === 'text') return block.text;
  if (block.type === 'resource_link') return `[${block.name}](${block.uri})`;
  if (block.type === 'resource' && 'text' in block.resource) return block.resource.text;
  return '';
}

/** A raw output as text: a string, an output/stdout field, or its JSON. */
function outputText(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw === 'string') return raw;
  if (isRecord(raw)) {
    const out = str(raw.output) ?? str(raw.stdout);
    if (out !== undefined) return [out, str(raw.stderr)].filter(Boolean).join('\n');
  }
  return JSON.stringify(raw).slice(0, 100_000);
}

/**
 * The tool_use_result of a finished call: the agent's own when it is structured, else an Edit/Write result built from
 * its diff.
 */
async function structuredResult(tool: ToolState): Promise<unknown> {
  const raw = tool.rawOutput;
  if (isRecord(raw) && Array.isArray(raw.structuredPatch)) return raw;
  const diff = tool.content.find((c) => c.type === 'diff');
  if (diff && tool.use) {
    const before = diff.oldText ?? null;
    const input = tool.use.input;
    if (tool.use.name === 'Write' || before === null) return writeResultOf(diff.path, before, diff.newText);
    return editResultOf(
      diff.path,
      str(input.old_string) ?? before,
      str(input.new_string) ?? diff.newText,
      before,
      diff.newText,
      input.replace_all === true,
    );
  }
  return isRecord(raw) ? raw : undefined;
}

/** The prompt as ACP content blocks (images only when the agent takes them). */
function promptBlocks(prompt: HarnessTurn['prompt'], images: boolean, warn: (line: string) => void): ContentBlock[] {
  if (typeof prompt === 'string') return [{ type: 'text', text: prompt }];
  const blocks: ContentBlock[] = [];
  for (const block of prompt) {
    if (block.type === 'text') blocks.push({ type: 'text', text: block.text });
    else if (block.type === 'image' && images)
      blocks.push({ type: 'image', data: block.source.data, mimeType: block.source.media_type });
    else if (block.type === 'image')
      warn(
        'harness acp: the agent does not take images (promptCapabilities.image): an image of the prompt was left out',
      );
  }
  return blocks;
}

/** The values a select config option offers (flat or grouped). */
function optionValues(option: SessionConfigOption): string[] {
  if (option.type !== 'select') return [];
  const entries = option.options as Array<Record<string, unknown>>;
  return entries.flatMap((o) =>
    Array.isArray(o.options) ? (o.options as Array<{ value: string }>).map((v) => v.value) : [String(o.value)],
  );
}

/** What session/new, session/load and session/resume answer that the harness uses. */
type SessionSettings = { modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null };

/** An ACP agent behind agentpipe's stream; see the module comment. */
export class AcpHarness implements Harness {
  readonly name = 'acp' as const;
  readonly #config: HarnessConfig;
  readonly #sessionId: string;
  readonly #terminals: Terminals;
  readonly #allowed: PermissionRule[];
  readonly #denied: PermissionRule[];
  #link?: AgentLink;
  #native?: string;
  #model?: string;
  #mode?: PermissionMode;
  #images = false;
  #prompt?: PromptTranslator;
  /** The agent's session cost so far (usage_update is cumulative), and what this prompt added. */
  #sessionCost?: number;
  #promptCost = 0;
  readonly #warned = new Set<string>();
  /** The agent's session settings (modes, config options), and whether the client changed the mode or model since. */
  #settings?: SessionSettings;
  #reconfigure = false;

  constructor(config: HarnessConfig, sessionId: string) {
    this.#config = config;
    this.#sessionId = sessionId;
    this.#terminals = new Terminals(config);
    this.#allowed = this.#rules(config.allowedTools);
    this.#denied = this.#rules(config.disallowedTools);
    if (config.maxTurns !== undefined)
      this.#warnOnce('harness acp: --max-turns has no ACP equivalent and is not applied');
    if (config.systemPrompt !== undefined || config.appendSystemPrompt !== undefined) {
      this.#warnOnce(
        'harness acp: ACP has no system prompt setting: --system-prompt/--append-system-prompt are not applied',
      );
    }
    if (config.baseUrl !== undefined)
      this.#warnOnce('harness acp: ACP has no base URL setting: --base-url is not applied');
  }

  get nativeSessionId(): string | undefined {
    return this.#native ?? this.#config.resumeNativeId;
  }

  /** A new model or mode is applied (session/set_mode, the model config option) before the next prompt. */
  configure(change: { model?: string; permissionMode?: PermissionMode }): void {
    Object.assign(this.#config, change);
    this.#reconfigure = true;
  }

  async run(turn: HarnessTurn): Promise<HarnessOutcome> {
    const state = new TurnState(turn, this.#config, this.#sessionId);
    try {
      return await this.#run(state);
    } catch (error) {
      if (error instanceof Aborted) {
        try {
          return await state.interrupted();
        } catch (inner) {
          return state.failure([`harness acp: ${errorText(inner)}`], 'aborted_streaming');
        }
      }
      return state.failure([error instanceof AgentError ? error.message : `harness acp: ${errorText(error)}`]);
    } finally {
      this.#prompt = undefined;
    }
  }

  async close(): Promise<void> {
    const link = this.#link;
    this.#link = undefined;
    this.#terminals.stopAll();
    if (!link) return;
    link.stop();
    await Promise.race([link.group.done, sleep(STOP_GRACE_MS + 1000, undefined, { ref: false })]);
  }

  /** Adds the prompt's share of the agent's cumulative cost (`usage_update`). */
  reportCost(cost: { amount: number; currency: string } | null | undefined): void {
    if (!cost || cost.currency !== 'USD' || !Number.isFinite(cost.amount)) return;
    if (this.#sessionCost !== undefined && cost.amount >= this.#sessionCost)
      this.#promptCost += cost.amount - this.#sessionCost;
    else if (this.#sessionCost === undefined) this.#promptCost += cost.amount;
    this.#sessionCost = cost.amount;
  }

  async #run(state: TurnState): Promise<HarnessOutcome> {
    const turn = state.turn;
    if (turn.signal.aborted) throw new Aborted();
    const link = await this.#start(turn.signal);
    if (this.#reconfigure && this.#settings) {
      this.#reconfigure = false;
      await this.#configure(link, this.#settings, turn.signal);
    }
    const sessionId = this.#native!;
    await state.init({
      nativeSessionId: sessionId,
      cwd: this.#config.cwd,
      ...(this.#model ? { model: this.#model } : {}),
      ...(this.#mode ? { permissionMode: this.#mode } : {}),
    });
    const model = this.#model ?? this.#config.model ?? 'acp';
    const prompt = new PromptTranslator(state, model, this.#terminals, this);
    this.#prompt = prompt;
    this.#promptCost = 0;
    const onAbort = () => prompt.interrupt.abort();
    turn.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const response = link.agent.request('session/prompt', {
        sessionId,
        prompt: promptBlocks(turn.prompt, this.#images, this.#config.warn),
      });
      let answer: Awaited<typeof response> | undefined;
      let failure: string | undefined;
      try {
        answer = await link.call('session/prompt', response, { signal: prompt.interrupt.signal });
      } catch (error) {
        if (!(error instanceof Aborted)) failure = error instanceof AgentError ? error.message : errorText(error);
      }
      if (!answer && failure === undefined) return await this.#cancel(link, sessionId, prompt, response);
      await prompt.finish();
      this.#addUsage(turn, model, answer);
      if (failure !== undefined) {
        if (link.exited || link.connection.signal.aborted) this.#drop(link);
        return state.failure([failure]);
      }
      if (prompt.interrupt.signal.aborted) return await state.interrupted();
      switch (answer!.stopReason) {
        case 'end_turn':
          return state.success('end_turn');
        case 'cancelled':
          return await state.interrupted();
        case 'max_tokens':
          return {
            ...state.failure(['the agent stopped: it reached its maximum number of output tokens (max_tokens)']),
            stopReason: 'max_tokens',
          };
        case 'max_turn_requests':
          return state.failure(
            ['the agent stopped: it reached its maximum number of requests (max_turn_requests)'],
            'max_turns',
            'error_max_turns',
          );
        case 'refusal':
          return { ...state.failure(['the agent refused to go on (refusal)']), stopReason: 'refusal' };
        default:
          return state.failure([
            `the agent ended the prompt with an unknown stop reason ${JSON.stringify(answer!.stopReason)}`,
          ]);
      }
    } finally {
      turn.signal.removeEventListener('abort', onAbort);
    }
  }

  /** `session/cancel`, then the prompt's end within the grace period, else the agent is stopped. */
  async #cancel(
    link: AgentLink,
    sessionId: string,
    prompt: PromptTranslator,
    response: Promise<unknown>,
  ): Promise<HarnessOutcome> {
    void link.agent.notify('session/cancel', { sessionId }).catch(() => {});
    const answered = response.then(
      () => 'answered',
      () => 'answered',
    );
    const ended = await Promise.race([
      answered,
      link.gone.then(() => 'gone'),
      sleep(CANCEL_GRACE_MS, 'late', { ref: false }),
    ]);
    if (ended === 'gone') this.#drop(link);
    if (ended === 'late') {
      this.#config.warn(
        `harness acp: the agent did not end the prompt within ${CANCEL_GRACE_MS / 1000} s of session/cancel: ` +
          `stopping it`,
      );
      this.#drop(link);
    }
    await prompt.finish();
    return prompt.state.interrupted();
  }

  #addUsage(turn: HarnessTurn, model: string, answer: unknown): void {
    // `usage` of a PromptResponse is still unstable in ACP: read it when the agent sends it.
    const usage = isRecord(answer) && isRecord(answer.usage) ? answer.usage : undefined;
    const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
    if (usage) {
      const counts = {
        input_tokens: num(usage.inputTokens),
        output_tokens: num(usage.outputTokens),
        cache_read_input_tokens: num(usage.cachedReadTokens),
        cache_creation_input_tokens: num(usage.cachedWriteTokens),
      };
      turn.usage.add(model, counts, this.#promptCost);
    } else if (this.#promptCost > 0) {
      turn.usage.add(model, { input_tokens: 0, output_tokens: 0 }, this.#promptCost);
    }
  }

  /** Forgets a dead (or stopped) agent: the next prompt starts it again and loads its session. */
  #drop(link: AgentLink): void {
    link.stop();
    this.#terminals.stopAll();
    if (this.#link === link) this.#link = undefined;
  }

  /** The running agent with its session: started, initialized, the session created or loaded. */
  async #start(signal: AbortSignal): Promise<AgentLink> {
    if (this.#link && !this.#link.exited && !this.#link.connection.signal.aborted) return this.#link;
    if (this.#link) this.#drop(this.#link);
    const confined = await confineCli(this.#config, this.#config.command, this.#config.env);
    const link = new AgentLink(
      { ...this.#config, command: confined.argv, env: confined.env },
      {
        update: (params) => this.#onUpdate(params),
        permission: (params, requestSignal) => this.#onPermission(params, requestSignal),
        readFile: (params) => this.#readFile(params),
        writeFile: (params) => this.#writeFile(params),
        terminals: this.#terminals,
      },
    );
    void link.group.done.then(() => confined.release());
    this.#link = link;
    try {
      const init = await link.call(
        'initialize',
        link.agent.request('initialize', {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          clientInfo: { name: 'agentpipe', title: 'agentpipe', version: VERSION },
        }),
        { timeoutMs: INIT_TIMEOUT_MS, signal },
      );
      link.initialized = true;
      if (init.protocolVersion !== acp.PROTOCOL_VERSION) {
        throw new AgentError(
          `the ACP agent speaks protocol version ${init.protocolVersion}; agentpipe speaks ${acp.PROTOCOL_VERSION}`,
        );
      }
      const caps = init.agentCapabilities ?? {};
      this.#images = caps.promptCapabilities?.image === true;
      const cwd = this.#config.cwd;
      const resume = this.#native ?? this.#config.resumeNativeId;
      let session: SessionSettings | undefined;
      if (resume && (caps.loadSession || caps.sessionCapabilities?.resume)) {
        // session/load replays the history as updates: no prompt is running, so they are dropped.
        const method = caps.loadSession ? 'session/load' : 'session/resume';
        try {
          session = await link.call(method, link.agent.request(method, { sessionId: resume, cwd, mcpServers: [] }), {
            timeoutMs: SESSION_TIMEOUT_MS,
            signal,
          });
          this.#native = resume;
        } catch (error) {
          if (!(error instanceof AgentError) || link.exited || link.connection.signal.aborted) throw error;
          this.#config.warn(
            `harness acp: could not resume the agent's session ${resume} (${error.message}): starting a new one`,
          );
        }
      } else if (resume) {
        this.#config.warn(
          `harness acp: the agent cannot load sessions (no loadSession capability): session ${resume} is not ` +
            `resumed, a new one starts`,
        );
      }
      if (!session) {
        const created = await link.call('session/new', link.agent.request('session/new', { cwd, mcpServers: [] }), {
          timeoutMs: SESSION_TIMEOUT_MS,
          signal,
        });
        this.#native = created.sessionId;
        session = created;
      }
      this.#settings = session;
      this.#reconfigure = false;
      await this.#configure(link, session, signal);
      return link;
    } catch (error) {
      this.#drop(link);
      throw error;
    }
  }

  /** The permission mode and model of the session, where the agent offers them. */
  async #configure(link: AgentLink, session: SessionSettings, signal: AbortSignal): Promise<void> {
    const sessionId = this.#native!;
    const wanted = this.#config.permissionMode;
    const modes = session.modes;
    this.#mode = PERMISSION_MODES.find((m) => m === modes?.currentModeId);
    if (modes?.availableModes.some((m) => m.id === wanted)) {
      if (modes.currentModeId !== wanted) {
        await link.call('session/set_mode', link.agent.request('session/set_mode', { sessionId, modeId: wanted }), {
          timeoutMs: SESSION_TIMEOUT_MS,
          signal,
        });
        modes.currentModeId = wanted;
      }
      this.#mode = wanted;
    } else if (wanted !== 'default') {
      this.#warnOnce(
        `harness acp: the agent has no "${wanted}" mode: the permission mode is applied to its permission ` +
          `requests only`,
      );
    }
    const option = session.configOptions?.find((o) => o.category === 'model' && o.type === 'select');
    const models = (session as { models?: unknown }).models;
    const model = this.#config.model;
    this.#model =
      option && option.type === 'select'
        ? option.currentValue
        : isRecord(models)
          ? str(models.currentModelId)
          : undefined;
    if (model === undefined || model === this.#model) return;
    if (option && optionValues(option).includes(model)) {
      const request = link.agent.request('session/set_config_option', { sessionId, configId: option.id, value: model });
      await link.call('session/set_config_option', request, { timeoutMs: SESSION_TIMEOUT_MS, signal });
      this.#model = model;
    } else if (
      isRecord(models) &&
      Array.isArray(models.availableModels) &&
      models.availableModels.some((m) => isRecord(m) && m.modelId === model)
    ) {
      // The unstable session/set_model, for agents that offer models that way.
      await link.call('session/set_model', link.agent.request('session/set_model', { sessionId, modelId: model }), {
        timeoutMs: SESSION_TIMEOUT_MS,
        signal,
      });
      this.#model = model;
    } else {
      this.#warnOnce(
        `harness acp: the agent offers no model "${model}" (no such value of a "model" session config option): ` +
          `--model is not applied`,
      );
    }
  }

  #onUpdate(params: SessionNotification): void {
    const prompt = this.#prompt;
    // Outside a prompt (the replay of session/load, late updates) there is nothing to add to.
    if (!prompt || params.sessionId !== this.#native) return;
    prompt.update(params.update);
  }

  async #onPermission(
    params: RequestPermissionRequest,
    requestSignal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const cancelled: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };
    const prompt = this.#prompt;
    if (!prompt || params.sessionId !== this.#native) return cancelled;
    const signal = AbortSignal.any([prompt.interrupt.signal, requestSignal]);
    await settle();
    const tool = await prompt.permissionTool(params.toolCall);
    if (signal.aborted) return cancelled;
    const choose = (kinds: string[]): RequestPermissionResponse => {
      for (const kind of kinds) {
        const option = params.options.find((o) => o.kind === kind);
        if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
      }
      return cancelled;
    };
    let answer: PermissionResult;
    if (this.#denied.some((rule) => isWholeToolRule(rule, tool.name)))
      answer = { behavior: 'deny', message: `${tool.name} is denied by --disallowed-tools` };
    else if (this.#allowed.some((rule) => isWholeToolRule(rule, tool.name))) answer = { behavior: 'allow' };
    else if (this.#config.permissionMode === 'bypassPermissions' && this.#mode !== 'bypassPermissions')
      answer = { behavior: 'allow' };
    else {
      try {
        const aborted = new Promise<never>((_, reject) => {
          if (signal.aborted) reject(new Aborted());
          signal.addEventListener('abort', () => reject(new Aborted()), { once: true });
        });
        answer = await Promise.race([prompt.state.turn.askPermission(tool.name, tool.input, tool.id, signal), aborted]);
      } catch {
        return cancelled;
      }
    }
    if (answer.behavior === 'allow') {
      if (answer.updatedInput && JSON.stringify(answer.updatedInput) !== JSON.stringify(tool.input)) {
        this.#warnOnce(
          'harness acp: a permission answer changed the tool input; ACP cannot pass that on, the agent runs ' +
            'its own input',
        );
      }
      return choose(['allow_once', 'allow_always']);
    }
    prompt.state.denials.push({
      tool_name: tool.name,
      tool_use_id: tool.id,
      tool_input: tool.input,
      reason: answer.message,
    });
    if (answer.interrupt) prompt.interrupt.abort();
    return choose(['reject_once', 'reject_always']);
  }

  async #readFile(params: {
    sessionId: string;
    path: string;
    line?: number | null;
    limit?: number | null;
  }): Promise<{ content: string }> {
    const file = await this.#inside(params.sessionId, params.path);
    // Served outside the agent's sandbox: the Read deny rules hold here as they do for the Read tool.
    const denied = readDeniedFor('Read', this.#denied, this.#config.cwd)?.(file);
    if (denied) throw acp.RequestError.invalidParams({ path: params.path }, `not read: denied by ${denied}`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw acp.RequestError.resourceNotFound(params.path);
      throw acp.RequestError.internalError(undefined, `cannot read ${params.path}: ${errorText(error)}`);
    }
    if (params.line == null && params.limit == null) return { content: text };
    const start = Math.max(0, (params.line ?? 1) - 1);
    const lines = text.split('\n');
    return { content: lines.slice(start, params.limit == null ? undefined : start + params.limit).join('\n') };
  }

  /**
   * The agent's own write, done by agentpipe outside the agent's sandbox: never into configuration that makes programs
   * run (`.git/hooks`, `.agentpipe/`, the folders the sandbox keeps read-only), and never through a link at the
   * file's name (one the agent swaps in after the check included).
   */
  async #writeFile(params: { sessionId: string; path: string; content: string }): Promise<Record<string, never>> {
    const file = await this.#inside(params.sessionId, params.path);
    const guarded = protectedReason(file) ?? readDeniedFor('Write', this.#denied, this.#config.cwd)?.(file);
    if (guarded) throw acp.RequestError.invalidParams({ path: params.path }, `not written: ${guarded}`);
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeTextNoFollow(file, params.content, 'write');
    } catch (error) {
      throw acp.RequestError.internalError(undefined, `cannot write ${params.path}: ${errorText(error)}`);
    }
    return {};
  }

  /** The real path of `file`, which must be absolute and inside the cwd (symbolic links followed). */
  async #inside(sessionId: string, file: string): Promise<string> {
    if (sessionId !== this.#native) throw acp.RequestError.sessionNotFound(sessionId);
    if (typeof file !== 'string' || !path.isAbsolute(file))
      throw acp.RequestError.invalidParams({ path: file }, 'the path must be absolute');
    const root = await realpath(this.#config.cwd);
    const real = await realpathOfPrefix(path.resolve(file));
    if (real !== root && !real.startsWith(root + path.sep)) {
      throw acp.RequestError.invalidParams(
        { path: file },
        `the path is outside the working folder ${this.#config.cwd}`,
      );
    }
    return real;
  }

  #rules(values: string[]): PermissionRule[] {
    try {
      return parseRules(values);
    } catch (error) {
      this.#config.warn(`harness acp: permission rules not applied: ${errorText(error)}`);
      return [];
    }
  }

  #warnOnce(line: string): void {
    if (this.#warned.has(line)) return;
    this.#warned.add(line);
    this.#config.warn(line);
  }
}

/** The real path of `file`: of its longest existing prefix when it does not exist (yet). */
async function realpathOfPrefix(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const parent = path.dirname(file);
    if (parent === file) return file;
    return path.join(await realpathOfPrefix(parent), path.basename(file));
  }
}
