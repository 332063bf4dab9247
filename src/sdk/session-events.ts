/**
 * The Copilot-style projection: AgentMessage stream → session event envelopes
 * `{id, timestamp, parentId, ephemeral, type, data}`. Pure and incremental (`push()`).
 * - Ephemeral (not part of the persisted history), as the Copilot SDK reference marks them:
 *   assistant.message_delta and assistant.reasoning_delta (streaming chunks), the tool progress
 *   group (tool.execution_start/_progress/_partial_result), session.idle, session.usage_info
 *   and assistant.usage.
 * - `parentId` chains each event to the last persisted event before it (null for the first).
 * - Events of a subagent carry `data.parentToolCallId` (the Task call it runs under).
 * - Each prompt ends with exactly one `session.idle`, after `abort` or `session.error` if it failed.
 * - `user.message` is the prompt's echo on the stream (`user` with `isReplay`, after its
 *   `system/init`), or another user text of the conversation.
 */
import type { AgentMessage, AssistantMessage, ResultMessage, ToolResultBlock, UserMessage } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { errorsOf } from '../messages/result-errors.ts';
import { contextTokensOf, sessionStartData, subagentInfo, toolResultText, usageEvents } from './session-event-data.ts';
import {
  EPHEMERAL_TYPES,
  type Emit,
  type Nested,
  type SessionEvent,
  type SessionEventDataMap,
  type SessionEventType,
  type ToolRequest,
} from './session-event-types.ts';
import { isRecord } from '../process/guards.ts';

type OfType<T extends AgentMessage['type']> = Extract<AgentMessage, { type: T }>;

export { EPHEMERAL_TYPES, isEventOf } from './session-event-types.ts';
export type { SessionEvent, SessionEventDataMap, SessionEventType, ToolRequest } from './session-event-types.ts';

interface Pending {
  messageId: string;
  content: string;
  toolRequests: ToolRequest[];
  parent: string | null;
}

export class SessionEventProjector {
  readonly #now: () => Date;
  readonly #newId: () => string;
  #parentId: string | null = null;
  #started = false;
  /** Prompt echoes seen before the first `system/init` (they follow its session.start). */
  #prompts: string[] = [];
  #pending?: Pending;
  #tools = new Map<string, { name: string; input: Record<string, unknown> }>();
  #lastOutput = new Map<string, string>();
  /** Blocks seen per API message id (a thinking block's index names its reasoningId). */
  readonly #blocks = new Map<string, number>();
  /** Started calls without their completion yet. */
  readonly #running = new Set<string>();
  #lastContextTokens = 0;
  #tokenLimit = 0;
  #messages = 0;
  /** The prompt's cluster worker was lost (`system/worker_lost`): an interrupted result is that, not the user. */
  #workerLost = false;

  constructor(options: { now?: () => Date; newId?: () => string } = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#newId = options.newId ?? newUuid;
  }

  push(message: AgentMessage): SessionEvent[] {
    const out: SessionEvent[] = [];
    const emit: Emit = (type, data) => out.push(this.#event(type, data));
    // An API message ends at its message_stop, or (without stream events) at the next message not of the answer (a
    // thinking block's token estimates are of it).
    const ofAnswer =
      message.type === 'assistant' ||
      message.type === 'stream_event' ||
      (message.type === 'system' && message.subtype === 'thinking_tokens');
    if (!ofAnswer) this.#flush(emit);
    switch (message.type) {
      case 'system':
        this.#system(message, emit);
        break;
      case 'auth_status':
        if (message.error) emit('session.error', { errorType: 'authentication', message: message.error });
        break;
      case 'stream_event':
        this.#streamEvent(message, emit);
        break;
      case 'assistant':
        this.#assistant(message, emit);
        break;
      case 'user':
        this.#user(message, emit);
        break;
      case 'tool_progress':
        this.#toolProgress(message, emit);
        break;
      case 'result':
        this.#result(message, emit);
        break;
    }
    return out;
  }

  /** A system message: the session's start (and the prompts shown before it), compaction, a lost worker, a hook. */
  #system(message: OfType<'system'>, emit: Emit): void {
    if (message.subtype === 'init') {
      if (!this.#started) emit('session.start', sessionStartData(message));
      this.#started = true;
      for (const text of this.#prompts.splice(0)) this.#userText(text, emit);
    } else if (message.subtype === 'status' && message.status === 'compacting') emit('session.compaction_start', {});
    else if (message.subtype === 'compact_boundary') {
      const meta = message.compact_metadata;
      emit('session.compaction_complete', {
        success: true,
        trigger: meta.trigger,
        preCompactionTokens: meta.pre_tokens,
        postCompactionTokens: meta.post_tokens,
      });
    } else if (message.subtype === 'worker_lost') this.#workerLost = true;
    else if (message.subtype === 'hook_response') {
      const hook = { hookInvocationId: message.hook_id, hookType: message.hook_event, hookName: message.hook_name };
      emit('hook.start', hook);
      emit('hook.end', {
        ...hook,
        success: message.outcome === 'success',
        ...(message.outcome === 'success'
          ? { result: message.output }
          : { error: { message: message.stderr || message.output || message.outcome } }),
      });
    }
  }

  /** A stream event: an API message begins or ends; its text and reasoning deltas. */
  #streamEvent(message: OfType<'stream_event'>, emit: Emit): void {
    const event = message.event;
    const parent = message.parent_tool_use_id ? { parentToolCallId: message.parent_tool_use_id } : {};
    if (event.type === 'message_start') this.#begin(event.message.id, message.parent_tool_use_id, emit);
    else if (event.type === 'message_stop') this.#flush(emit);
    else if (event.type === 'content_block_delta' && this.#pending) {
      if (event.delta.type === 'text_delta')
        emit('assistant.message_delta', {
          messageId: this.#pending.messageId,
          deltaContent: event.delta.text,
          ...parent,
        });
      if (event.delta.type === 'thinking_delta')
        emit('assistant.reasoning_delta', {
          reasoningId: `${this.#pending.messageId}:${event.index}`,
          deltaContent: event.delta.thinking,
          ...parent,
        });
    }
  }

  /** A running tool's progress, and its partial output when that changed. */
  #toolProgress(message: OfType<'tool_progress'>, emit: Emit): void {
    const parent = message.parent_tool_use_id ? { parentToolCallId: message.parent_tool_use_id } : {};
    emit('tool.execution_progress', {
      toolCallId: message.tool_use_id,
      progressMessage: `${message.tool_name} running for ${message.elapsed_time_seconds}s`,
      ...parent,
    });
    if (message.output && message.output !== this.#lastOutput.get(message.tool_use_id)) {
      this.#lastOutput.set(message.tool_use_id, message.output);
      emit('tool.execution_partial_result', {
        toolCallId: message.tool_use_id,
        partialOutput: message.output,
        ...parent,
      });
    }
  }

  #event<K extends SessionEventType>(type: K, data: SessionEventDataMap[K]): SessionEvent {
    const ephemeral = EPHEMERAL_TYPES.has(type);
    // `type` and `data` agree by the signature; TypeScript cannot tie a generic K to one member of the union.
    const event = {
      id: this.#newId(),
      timestamp: this.#now().toISOString(),
      parentId: this.#parentId,
      ephemeral,
      type,
      data,
    } as SessionEvent;
    if (!ephemeral) this.#parentId = event.id;
    return event;
  }

  #begin(messageId: string, parent: string | null, emit: Emit): void {
    if (this.#pending?.messageId === messageId) return;
    this.#flush(emit);
    this.#pending = { messageId, content: '', toolRequests: [], parent };
    emit('assistant.message_start', { messageId, ...(parent ? { parentToolCallId: parent } : {}) });
  }

  #assistant(message: AssistantMessage, emit: Emit): void {
    const id = message.message.id;
    this.#begin(id, message.parent_tool_use_id, emit);
    const pending = this.#pending!;
    const parent = message.parent_tool_use_id ? { parentToolCallId: message.parent_tool_use_id } : {};
    this.#lastContextTokens = contextTokensOf(message) ?? this.#lastContextTokens;
    message.message.content.forEach((block, i) => {
      if (block.type === 'text') pending.content += block.text;
      else if (block.type === 'thinking')
        emit('assistant.reasoning', {
          reasoningId: `${id}:${this.#blockIndex(pending) + i}`,
          content: block.thinking,
          ...parent,
        });
      else {
        pending.toolRequests.push({ toolCallId: block.id, name: block.name, arguments: block.input, type: 'function' });
        this.#tools.set(block.id, { name: block.name, input: block.input });
      }
    });
    this.#blocks.set(id, this.#blockIndex(pending) + message.message.content.length);
  }

  #blockIndex(pending: Pending): number {
    return this.#blocks.get(pending.messageId) ?? 0;
  }

  #flush(emit: Emit): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    const parent = pending.parent ? { parentToolCallId: pending.parent } : {};
    if (!pending.parent) this.#messages++;
    emit('assistant.message', {
      messageId: pending.messageId,
      content: pending.content,
      ...(pending.toolRequests.length ? { toolRequests: pending.toolRequests } : {}),
      ...parent,
    });
    for (const request of pending.toolRequests) {
      this.#running.add(request.toolCallId);
      emit('tool.execution_start', {
        toolCallId: request.toolCallId,
        toolName: request.name,
        arguments: request.arguments,
        ...parent,
      });
      const subagent = isRecord(request.arguments) ? subagentInfo(request.name, request.arguments) : undefined;
      if (subagent) emit('subagent.started', { toolCallId: request.toolCallId, ...subagent });
    }
  }

  #user(message: UserMessage, emit: Emit): void {
    const content = message.message.content;
    const parent = message.parent_tool_use_id ? { parentToolCallId: message.parent_tool_use_id } : {};
    if (typeof content === 'string') {
      if (!message.parent_tool_use_id) this.#userText(content, emit, message.isReplay);
      return;
    }
    const text = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    if (text && !message.parent_tool_use_id) this.#userText(text, emit, message.isReplay);
    for (const block of content)
      if (block.type === 'tool_result') this.#toolResult(block, message.tool_use_result, parent, emit);
  }

  /**
   * A user message of the conversation; a prompt echo that comes before the first `system/init` waits for its
   * session.start.
   */
  #userText(text: string, emit: Emit, echo?: boolean): void {
    if (echo && !this.#started) {
      this.#prompts.push(text);
      return;
    }
    this.#messages++;
    if (!text.startsWith('[Request interrupted by user')) emit('user.message', { content: text });
  }

  #toolResult(block: ToolResultBlock, structured: unknown, parent: Nested, emit: Emit): void {
    const tool = this.#tools.get(block.tool_use_id);
    const success = block.is_error !== true;
    const text = toolResultText(block);
    this.#running.delete(block.tool_use_id);
    emit('tool.execution_complete', {
      toolCallId: block.tool_use_id,
      success,
      ...(success ? { result: { content: text } } : { error: { message: text, code: 'failure' } }),
      toolTelemetry: {
        toolName: tool?.name ?? 'unknown',
        ...(structured !== undefined ? { structuredResult: structured } : {}),
      },
      ...parent,
    });
    const subagent = tool && subagentInfo(tool.name, tool.input);
    if (subagent)
      emit(success ? 'subagent.completed' : 'subagent.failed', {
        toolCallId: block.tool_use_id,
        agentName: subagent.agentName,
        ...(success ? {} : { error: text }),
      });
  }

  #result(result: ResultMessage, emit: Emit): void {
    // Calls the prompt ended before they returned (an interrupt) complete as failed.
    for (const toolCallId of this.#running) {
      this.#toolResult(
        {
          type: 'tool_result',
          tool_use_id: toolCallId,
          content: 'Tool call did not finish: the prompt ended first',
          is_error: true,
        },
        undefined,
        {},
        emit,
      );
    }
    const interrupted = result.terminal_reason === 'aborted_streaming' || result.terminal_reason === 'aborted_tools';
    const workerLost = this.#workerLost;
    this.#workerLost = false;
    if (interrupted) emit('abort', { reason: workerLost ? 'worker lost' : 'user initiated' });
    else if (result.is_error)
      emit('session.error', {
        errorType: result.subtype === 'success' ? 'api_error' : result.subtype,
        message: errorsOf(result).join('; '),
      });
    const { usage, info } = usageEvents(result, this.#lastContextTokens, this.#messages);
    for (const data of usage) emit('assistant.usage', data);
    this.#tokenLimit = info.tokenLimit || this.#tokenLimit;
    emit('session.usage_info', { ...info, tokenLimit: this.#tokenLimit });
    emit('session.idle', {});
    this.#tools.clear();
    this.#lastOutput.clear();
    this.#blocks.clear();
  }
}

/**
 * Projects a message stream into session events as they come. `user.message` comes from the
 * prompt echoes on the stream: `query()` yields them with `replayUserMessages: true`, the CLI
 * prints them with `--replay-user-messages`.
 */
export async function* toSessionEvents(
  stream: AsyncIterable<AgentMessage>,
  options: { now?: () => Date; newId?: () => string } = {},
): AsyncGenerator<SessionEvent> {
  const projector = new SessionEventProjector(options);
  for await (const message of stream) yield* projector.push(message);
}
