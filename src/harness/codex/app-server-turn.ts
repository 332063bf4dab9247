/**
 * One prompt of the Codex harness on `codex app-server`: the turn's v2 notifications translated
 * into agentpipe's stream as they come (texts and reasoning as stream deltas, commands as Bash calls
 * with their output live in `tool_progress`, file changes as Edit/Write calls with the file before
 * and after, MCP calls, web searches, the plan as TodoWrite), and codex's approval requests asked
 * through agentpipe's session (`askPermission`), whose answer is codex's decision.
 */
import { readFile } from 'node:fs/promises';
import type { AssistantContentBlock, StreamEvent } from '../../messages/types.ts';
import { newApiId, newUuid } from '../../messages/ids.ts';
import { INTERRUPTED_TOOLS } from '../../messages/notices.ts';
import { todoWriteAnswer } from '../../tools/builtin/todo-write.ts';
import type { TurnState } from '../turn-state.ts';
import type { HarnessOutcome, HarnessTurn } from '../types.ts';
import {
  CommandApprovalParams,
  DeltaNotification,
  ErrorNotification,
  FileChangeApprovalParams,
  ItemNotification,
  PlanNotification,
  TokenUsageNotification,
  TurnNotification,
  type ThreadItem,
} from './protocol.ts';
import { commandResult, fileCallOf, plannedCall, reverseUnifiedDiff, unwrapShell } from './shared.ts';
import type { z } from 'zod';
import { isRecord } from '../../process/guards.ts';

/** A text or reasoning item streaming now: its message id and whether its block was opened. */
interface Streaming {
  messageId: string;
  kind: 'text' | 'thinking';
  text: string;
}

/** A tool call in progress: its tool_use id(s), name and input, and what it needs at the end. */
interface OpenCall {
  ids: string[];
  name: string;
  input: Record<string, unknown>;
  started: number;
  output: string;
  /** File changes: each path's text before codex applied it (null: the file did not exist). */
  before?: Map<string, string | null | undefined>;
}

export class AppServerTurn {
  readonly state: TurnState;
  readonly turn: HarnessTurn;
  readonly model: string;
  /** The codex turn id, once turn/start answered. */
  turnId?: string;
  #idKnown!: (id: string) => void;
  /** Resolves with the turn id once turn/start answered. */
  readonly idKnown = new Promise<string>((resolve) => (this.#idKnown = resolve));
  lastError?: string;
  readonly #streaming = new Map<string, Streaming>();
  readonly #open = new Map<string, OpenCall>();
  #done!: (outcome: HarnessOutcome) => void;
  readonly outcome = new Promise<HarnessOutcome>((resolve) => (this.#done = resolve));

  constructor(state: TurnState, turn: HarnessTurn, model: string) {
    this.state = state;
    this.turn = turn;
    this.model = model;
  }

  setTurnId(id: string): void {
    this.turnId = id;
    this.#idKnown(id);
  }

  /** One notification of codex. */
  async notification(method: string, params: unknown): Promise<void> {
    switch (method) {
      case 'item/started':
        return this.#parsed(ItemNotification, params, method, (p) => this.#started(p.item));
      case 'item/completed':
        return this.#parsed(ItemNotification, params, method, (p) => this.#completed(p.item));
      case 'item/agentMessage/delta':
        return this.#parsed(DeltaNotification, params, method, (p) => this.#delta(p.itemId, p.delta, 'text'));
      case 'item/reasoning/summaryTextDelta':
      case 'item/reasoning/textDelta':
        return this.#parsed(DeltaNotification, params, method, (p) => this.#delta(p.itemId, p.delta, 'thinking'));
      case 'item/commandExecution/outputDelta':
        return this.#parsed(DeltaNotification, params, method, (p) => this.#output(p.itemId, p.delta));
      case 'turn/plan/updated':
        return this.#parsed(PlanNotification, params, method, (p) => this.#plan(p.plan));
      case 'thread/tokenUsage/updated':
        return this.#parsed(TokenUsageNotification, params, method, ({ tokenUsage: { last } }) => {
          // OpenAI counts cached tokens in input_tokens; Anthropic's usage (the result's) does not.
          this.state.turn.usage.add(this.model, {
            input_tokens: Math.max(0, last.inputTokens - last.cachedInputTokens),
            output_tokens: last.outputTokens,
            cache_read_input_tokens: last.cachedInputTokens,
            cache_creation_input_tokens: last.cacheWriteInputTokens,
          });
        });
      case 'error':
        return this.#parsed(ErrorNotification, params, method, (p) => {
          if (p.willRetry) this.state.config.warn(`harness codex: ${p.error.message}`);
          else this.lastError = p.error.message;
        });
      case 'turn/completed':
        return this.#parsed(TurnNotification, params, method, (p) => this.#end(p.turn));
      default:
        return; // status changes, diffs (each file change carries its own), rate limits, warnings…
    }
  }

  async #parsed<T extends z.ZodType>(
    schema: T,
    params: unknown,
    method: string,
    then: (p: z.infer<T>) => void | Promise<void>,
  ): Promise<void> {
    const parsed = schema.safeParse(params);
    if (!parsed.success) return this.state.unknown(`${method} frame`, parsed.error.issues[0]?.message);
    await then(parsed.data);
  }

  async #started(item: ThreadItem): Promise<void> {
    switch (item.type) {
      case 'agentMessage':
      case 'reasoning':
        return this.#openText(item.id, item.type === 'reasoning' ? 'thinking' : 'text');
      case 'commandExecution':
        return this.#call(item.id, 'Bash', { command: unwrapShell(item.command ?? '') });
      case 'fileChange':
        return this.#fileChangeStarted(item);
      case 'mcpToolCall':
        return this.#call(
          item.id,
          `mcp__${item.server ?? 'unknown'}__${item.tool ?? 'unknown'}`,
          inputOf(item.arguments),
        );
      case 'webSearch':
        return this.#call(item.id, 'WebSearch', { query: item.query ?? '' });
      case 'userMessage':
        return; // the session shows the prompt from its own echo
      default:
        this.state.unknown(`item type ${item.type}`);
    }
  }

  async #completed(item: ThreadItem): Promise<void> {
    switch (item.type) {
      case 'agentMessage':
        return this.#closeText(item.id, 'text', item.text ?? '');
      case 'reasoning':
        return this.#closeText(item.id, 'thinking', (item.summary ?? []).join('\n'));
      case 'commandExecution':
        return this.#commandDone(item);
      case 'fileChange':
        return this.#fileChangeDone(item);
      case 'mcpToolCall': {
        const failed = item.error != null || item.status === 'failed';
        const text = (item.result?.content ?? [])
          .map((b) => (isRecord(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
          .filter(Boolean)
          .join('\n');
        const content = failed
          ? `<tool_use_error>${item.error?.message ?? 'the MCP tool call failed'}</tool_use_error>`
          : text;
        return this.#result(item.id, content, failed, item.result ?? undefined);
      }
      case 'webSearch':
        return this.#result(item.id, `Web search: ${item.query ?? ''}`, false, {
          query: item.query ?? '',
          results: [],
        });
      default:
        return;
    }
  }

  /** A text or reasoning item begins: with partial messages, its message and block open now. */
  async #openText(itemId: string, kind: 'text' | 'thinking'): Promise<void> {
    const streaming = { messageId: newApiId('msg'), kind, text: '' };
    this.#streaming.set(itemId, streaming);
    if (!this.state.config.includePartialMessages) return;
    const start = this.state.assistant([], this.model).message;
    start.id = streaming.messageId;
    const block: AssistantContentBlock =
      kind === 'text' ? { type: 'text', text: '', citations: null } : { type: 'thinking', thinking: '', signature: '' };
    await this.#event({ type: 'message_start', message: start });
    await this.#event({ type: 'content_block_start', index: 0, content_block: block });
  }

  async #delta(itemId: string, delta: string, kind: 'text' | 'thinking'): Promise<void> {
    const streaming = this.#streaming.get(itemId);
    if (!streaming || !delta) return;
    streaming.text += delta;
    if (!this.state.config.includePartialMessages) return;
    await this.#event({
      type: 'content_block_delta',
      index: 0,
      delta:
        kind === 'text'
          ? { type: 'text_delta', text: delta }
          : { type: 'thinking_delta', thinking: delta, estimated_tokens: null },
    });
  }

  /** The whole text: the final assistant message (the same id as its deltas, so faces show it once). */
  async #closeText(itemId: string, kind: 'text' | 'thinking', text: string): Promise<void> {
    const streaming = this.#streaming.get(itemId);
    this.#streaming.delete(itemId);
    if (streaming && this.state.config.includePartialMessages)
      await this.#event({ type: 'content_block_stop', index: 0 });
    if (!text) return;
    const block: AssistantContentBlock =
      kind === 'text' ? { type: 'text', text, citations: null } : { type: 'thinking', thinking: text, signature: '' };
    const final = this.state.assistant([block], this.model);
    if (streaming) final.message.id = streaming.messageId;
    await this.state.emit(final);
  }

  #event(event: StreamEvent): Promise<void> {
    return this.state.streamEvent(event);
  }

  /** Opens a tool call (its tool_use). */
  async #call(
    itemId: string,
    name: string,
    input: Record<string, unknown>,
    extra: Partial<OpenCall> = {},
  ): Promise<void> {
    const id = newApiId('toolu');
    this.#open.set(itemId, { ids: [id], name, input, started: Date.now(), output: '', ...extra });
    await this.state.emit(this.state.assistant([{ type: 'tool_use', id, name, input }], this.model, 'tool_use'));
  }

  async #result(itemId: string, content: string, isError: boolean, result?: unknown): Promise<void> {
    const call = this.#open.get(itemId);
    if (!call) return;
    this.#open.delete(itemId);
    for (const id of call.ids) await this.state.emit(this.state.toolResult(id, content, isError, result));
  }

  /** A command's output as it comes: `tool_progress` with the output so far (its last 2000 characters). */
  async #output(itemId: string, delta: string): Promise<void> {
    const call = this.#open.get(itemId);
    if (!call) return;
    call.output += delta;
    await this.state.emit({
      type: 'tool_progress',
      tool_use_id: call.ids[0]!,
      tool_name: call.name,
      parent_tool_use_id: null,
      elapsed_time_seconds: Math.round((Date.now() - call.started) / 100) / 10,
      output: call.output.slice(-2000),
      session_id: this.state.sessionId,
      uuid: newUuid(),
    });
  }

  async #commandDone(item: ThreadItem): Promise<void> {
    const call = this.#open.get(item.id);
    const output = item.aggregatedOutput ?? call?.output ?? '';
    const { content, isError, result } = commandResult(output, item.exitCode ?? undefined, item.status ?? undefined);
    await this.#result(item.id, content, isError, result);
  }

  /** A file change begins (before codex applies it): its calls, with the files as they are now. */
  async #fileChangeStarted(item: ThreadItem): Promise<void> {
    const before = new Map<string, string | null | undefined>();
    const ids: string[] = [];
    const blocks: AssistantContentBlock[] = [];
    let first: { name: string; input: Record<string, unknown> } | undefined;
    for (const change of item.changes ?? []) {
      const planned = plannedCall(change, await readFile(change.path, 'utf8').catch(() => null));
      before.set(change.path, planned.before);
      const id = newApiId('toolu');
      ids.push(id);
      first ??= planned;
      blocks.push({ type: 'tool_use', id, name: planned.name, input: planned.input });
    }
    this.#open.set(item.id, {
      ids,
      name: first?.name ?? 'Edit',
      input: first?.input ?? {},
      started: Date.now(),
      output: '',
      before,
    });
    if (blocks.length) await this.state.emit(this.state.assistant(blocks, this.model, 'tool_use'));
  }

  /** A file change ended: each file's call gets its result (the file before and after). */
  async #fileChangeDone(item: ThreadItem): Promise<void> {
    const call = this.#open.get(item.id);
    if (!call) return;
    this.#open.delete(item.id);
    const changes = item.changes ?? [];
    const ok = item.status === 'completed';
    for (const [n, id] of call.ids.entries()) {
      const change = changes[n];
      if (!ok || !change) {
        const why =
          item.status === 'declined'
            ? 'the change was declined'
            : `codex could not apply its patch to ${change?.path ?? 'the file'}`;
        await this.state.emit(this.state.toolResult(id, `<tool_use_error>${why}</tool_use_error>`, true));
        continue;
      }
      const after = (await readFile(change.path, 'utf8').catch(() => null)) ?? '';
      const known = call.before?.get(change.path);
      const before = known ?? (change.kind.type === 'update' ? reverseUnifiedDiff(after, change.diff) : undefined);
      const done = await fileCallOf({ path: change.path, kind: change.kind.type }, before ?? undefined, after);
      await this.state.emit(this.state.toolResult(id, done.content, false, done.result));
    }
  }

  /** The plan, as a TodoWrite call and its result. */
  async #plan(plan: z.infer<typeof PlanNotification>['plan']): Promise<void> {
    const todos = plan.map((s) => ({
      content: s.step,
      status: s.status === 'inProgress' ? 'in_progress' : s.status,
      activeForm: s.step,
    }));
    const id = newApiId('toolu');
    await this.state.emit(
      this.state.assistant([{ type: 'tool_use', id, name: 'TodoWrite', input: { todos } }], this.model, 'tool_use'),
    );
    await this.state.emit(this.state.toolResult(id, todoWriteAnswer, false, { newTodos: todos }));
  }

  /** codex asks to run a command: agentpipe's session decides. */
  async commandApproval(params: unknown): Promise<unknown> {
    const p = CommandApprovalParams.parse(params);
    const call = this.#open.get(p.itemId);
    const input = call?.input ?? { command: unwrapShell(p.command ?? '') };
    return { decision: await this.#ask('Bash', input, call?.ids[0] ?? p.itemId, p.reason ?? undefined) };
  }

  /** codex asks to apply a file change: agentpipe's session decides on its first file's call. */
  async fileChangeApproval(params: unknown): Promise<unknown> {
    const p = FileChangeApprovalParams.parse(params);
    const call = this.#open.get(p.itemId);
    return {
      decision: await this.#ask(
        call?.name ?? 'Edit',
        call?.input ?? {},
        call?.ids[0] ?? p.itemId,
        p.reason ?? undefined,
      ),
    };
  }

  async #ask(tool: string, input: Record<string, unknown>, toolUseId: string, reason?: string): Promise<string> {
    try {
      const answer = await this.turn.askPermission(
        tool,
        input,
        toolUseId,
        this.turn.signal,
        reason ? { decisionReason: reason } : undefined,
      );
      if (answer.behavior === 'allow') return 'accept';
      return answer.interrupt ? 'cancel' : 'decline';
    } catch {
      return 'cancel';
    }
  }

  async #end(turn: z.infer<typeof TurnNotification>['turn']): Promise<void> {
    if (this.turnId !== undefined && turn.id !== this.turnId) return;
    await this.closeOpen();
    if (turn.status === 'completed') return this.#done(this.state.success());
    if (turn.status === 'interrupted') return this.#done(await this.state.interrupted());
    this.#done(this.state.failure([turn.error?.message ?? this.lastError ?? 'codex reported a failed turn']));
  }

  /** Ends what codex left open (an interrupt, or codex went away). */
  async closeOpen(): Promise<void> {
    for (const itemId of [...this.#streaming.keys()]) await this.#closeText(itemId, 'text', '');
    for (const [itemId, call] of [...this.#open]) {
      this.#open.delete(itemId);
      for (const id of call.ids) await this.state.emit(this.state.toolResult(id, INTERRUPTED_TOOLS, true));
    }
  }

  /** Ends the prompt with `outcome` (the harness's own end: an error, an interrupt codex did not confirm). */
  finish(outcome: HarnessOutcome): void {
    this.#done(outcome);
  }
}

const inputOf = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
