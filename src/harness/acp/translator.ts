/** One prompt's `session/update` notifications translated into agentpipe's messages, in order. */
import type { AssistantContentBlock, StreamEvent } from '../../messages/types.ts';
import type { ContentBlock, PlanEntry, SessionUpdate, StopReason, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { newApiId, newUuid } from '../../messages/ids.ts';
import { PERMISSION_MODES } from '../../messages/permission-modes.ts';
import { toolUseError } from '../../messages/notices.ts';
import { todoWriteAnswer } from '../../tools/builtin/todo-write.ts';
import type { TurnState } from '../turn-state.ts';
import type { HarnessOutcome, HarnessTurn } from '../types.ts';
import { errorText, isRecord, settle, str } from './shared.ts';
import type { Terminals } from './terminals.ts';
import { chunkText, outputText, structuredResult, toolOf, type ToolState } from './tools.ts';

/** The agent's cumulative session cost (`usage_update`), reported to the harness. */
export type CostReport = (cost: { amount: number; currency: string } | null | undefined) => void;

/** Translates one prompt's session/update notifications into messages, in order. */
export class PromptTranslator {
  readonly state: TurnState;
  /** Aborts on the turn's abort, or when a permission answer asks to interrupt. */
  readonly interrupt = new AbortController();
  readonly #model: string;
  readonly #terminals: Terminals;
  readonly #reportCost: CostReport;
  #chain: Promise<void> = Promise.resolve();
  #error: unknown;
  #text?: { id: string; messageId?: string | null; blocks: Array<{ kind: 'text' | 'thinking'; text: string }> };
  readonly #tools = new Map<string, ToolState>();

  constructor(state: TurnState, model: string, terminals: Terminals, reportCost: CostReport) {
    this.state = state;
    this.#model = model;
    this.#terminals = terminals;
    this.#reportCost = reportCost;
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
        this.#reportCost(update.cost);
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
      default: {
        const unknownUpdate: unknown = update; // a kind this SDK version does not declare
        this.state.unknown('session/update', isRecord(unknownUpdate) ? str(unknownUpdate.sessionUpdate) : undefined);
      }
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

/** The prompt as ACP content blocks (images only when the agent takes them). */
export function promptBlocks(
  prompt: HarnessTurn['prompt'],
  images: boolean,
  warn: (line: string) => void,
): ContentBlock[] {
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

/** The outcome of a prompt the agent ended with `stopReason`. */
export async function outcomeOf(state: TurnState, stopReason: StopReason): Promise<HarnessOutcome> {
  switch (stopReason) {
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
      return state.failure([`the agent ended the prompt with an unknown stop reason ${JSON.stringify(stopReason)}`]);
  }
}
