/**
 * What a model response streams to the client beside its `assistant` messages, as Claude Code 2.1.332 sends it:
 * - `stream_event` messages (with `--include-partial-messages`): the API's own event (`wireOf`), the response's id
 *   (`api_message_id`) on every event from its `message_start` to its `message_stop`, the time from the request to
 *   that `message_start` (`ttft_ms`) on it, and the thinking display the request asked for (`thinking_display`) on
 *   `message_start` and on a thinking block's start and deltas;
 * - `system/thinking_tokens` before each thinking delta (always): the running estimate of the block's tokens;
 * - an `assistant` message per finished block; a thinking block's has the display asked for and how long it took;
 * - for a response an interrupt cut short (`closing`): the cut block's `assistant` message marked `aborted`, then the
 *   events that close the response as Claude Code closes it, after the interruption notice: the open block's
 *   `content_block_stop` (not a tool call's), a `message_delta` without a stop reason, and a `message_stop` whose
 *   `abandoned_blocks` says from which block on the response has no `assistant` message.
 */
import { newUuid } from '../messages/ids.ts';
import type {
  ApiMessage,
  ApiUsage,
  AssistantContentBlock,
  AssistantMessage,
  DeltaUsage,
  StreamEvent,
  StreamEventMessage,
  ThinkingTokensMessage,
  ToolUseMeta,
} from '../messages/types.ts';
import { wireOf } from '../model/wire-event.ts';
import { monotonicMs } from '../process/clock.ts';
import type { ThinkingConfig } from '../model/types.ts';

/** The thinking display a request asks for (`thinking.display`), when it asks for one. */
export function thinkingDisplayOf(thinking: ThinkingConfig | undefined): string | undefined {
  return thinking && thinking.type !== 'disabled' ? thinking.display : undefined;
}

export interface PartialStreamOptions {
  parentToolUseId: string | null;
  sessionId: string;
  /** The request's `thinking.display`, if it had one. */
  thinkingDisplay?: string;
  /** When the request was sent (`monotonicMs()`). */
  sentAt: number;
  /** Where the ids of the responses that began to stream go (`result.begun_message_ids`), if anywhere. */
  begun?: string[];
}

/** One response's stream: feed it every event in order. */
export class PartialStream {
  readonly #options: PartialStreamOptions;
  #apiMessageId: string | undefined;
  /** The thinking block streaming now: when it started and its text's estimate so far. */
  #thinking: { startedAt: number; estimate: number; chars: number } | undefined;
  #thinkingMs: number | undefined;
  /** The response's state for `closing`: its id while open, the open block, the first block not shown. */
  #cut: { open: string | undefined; block: number | null; toolBlock: boolean; stopped: boolean } = {
    open: undefined,
    block: null,
    toolBlock: false,
    stopped: false,
  };
  #shownUpTo = 0;

  constructor(options: PartialStreamOptions) {
    this.#options = options;
  }

  /** The `stream_event` message of `event`. */
  message(event: StreamEvent): StreamEventMessage {
    const { thinkingDisplay } = this.#options;
    const message: StreamEventMessage = {
      type: 'stream_event',
      event: wireOf(event),
      parent_tool_use_id: this.#options.parentToolUseId,
      session_id: this.#options.sessionId,
      uuid: newUuid(),
      api_message_id: this.#apiMessageId,
    };
    if (event.type === 'message_start') {
      message.ttft_ms = Math.max(0, Math.round(monotonicMs() - this.#options.sentAt));
      if (thinkingDisplay) message.thinking_display = thinkingDisplay;
    } else if (thinkingDisplay && isThinkingEvent(event)) message.thinking_display = thinkingDisplay;
    return message;
  }

  /**
   * Notes an event before it is sent: the response's id at `message_start`, a thinking block's start and end. For a
   * thinking delta, returns the `system/thinking_tokens` message that goes before it.
   */
  observe(event: StreamEvent): ThinkingTokensMessage | undefined {
    switch (event.type) {
      case 'message_start':
        this.#apiMessageId = event.message.id || undefined;
        this.#cut = { open: this.#apiMessageId, block: null, toolBlock: false, stopped: false };
        this.#shownUpTo = 0;
        if (this.#apiMessageId && this.#options.parentToolUseId === null) this.#options.begun?.push(this.#apiMessageId);
        return undefined;
      case 'content_block_start':
        this.#cut.block = event.index;
        this.#cut.toolBlock = TOOL_BLOCKS.has(event.content_block.type);
        this.#cut.stopped = false;
        if (event.content_block.type === 'thinking')
          this.#thinking = { startedAt: monotonicMs(), estimate: 0, chars: event.content_block.thinking.length };
        return undefined;
      case 'content_block_stop':
        this.#cut.block = null;
        this.#shownUpTo = Math.max(this.#shownUpTo, event.index + 1);
        if (this.#thinking) this.#thinkingMs = Math.max(1, Math.round(monotonicMs() - this.#thinking.startedAt));
        this.#thinking = undefined;
        return undefined;
      case 'content_block_delta':
        return event.delta.type === 'thinking_delta' && this.#options.parentToolUseId === null
          ? this.#thinkingTokens(event.delta.thinking)
          : undefined;
      case 'message_delta':
        if (event.delta.stop_reason !== null && this.#cut.block === null) this.#cut.stopped = true;
        return undefined;
      case 'message_stop':
        this.#cut.open = undefined;
        return undefined;
      default:
        return undefined;
    }
  }

  /** The `assistant` message of the block an interrupt cut short (`aborted`); it counts as shown. */
  cutAssistant(block: AssistantContentBlock, start: ApiMessage, startUsage: ApiUsage | undefined): AssistantMessage {
    if (this.#cut.block !== null) this.#shownUpTo = Math.max(this.#shownUpTo, this.#cut.block + 1);
    return { ...this.assistant(block, start, startUsage), aborted: true };
  }

  /**
   * The events that close a response an interrupt cut short, sent after the interruption notice (none once it
   * ended): `usage` is the response's so far.
   */
  closing(usage: ApiUsage): StreamEventMessage[] {
    const { open, block, toolBlock, stopped } = this.#cut;
    if (open === undefined) return [];
    this.#cut.open = undefined;
    const events: StreamEvent[] = [];
    if (block !== null && !toolBlock) events.push({ type: 'content_block_stop', index: block });
    if (!stopped)
      events.push({
        type: 'message_delta',
        context_management: null,
        delta: { container: null, stop_details: null, stop_reason: null, stop_sequence: null },
        usage: closingUsage(usage),
      });
    events.push({ type: 'message_stop' });
    return events.map((event) => ({
      ...this.#closingEnvelope(event),
      ...(event.type === 'message_stop' && !stopped
        ? { abandoned_blocks: { api_message_id: open, from_block_index: this.#shownUpTo } }
        : {}),
    }));
  }

  #closingEnvelope(event: StreamEvent): StreamEventMessage {
    return {
      type: 'stream_event',
      event,
      parent_tool_use_id: this.#options.parentToolUseId,
      session_id: this.#options.sessionId,
      uuid: newUuid(),
      api_message_id: this.#apiMessageId,
    };
  }

  /**
   * The `assistant` message of a finished block, sent at its end (before its content_block_stop), as Claude Code sends
   * it: `message_start`'s fields and usage (as the API sent it), `stop_reason` null; the final ones are in the result.
   */
  assistant(block: AssistantContentBlock, start: ApiMessage, startUsage: ApiUsage | undefined, meta?: ToolUseMeta[]) {
    const message: AssistantMessage = {
      type: 'assistant',
      message: {
        id: start.id,
        type: 'message',
        role: 'assistant',
        model: start.model,
        content: [sentBlock(block)],
        stop_reason: null,
        stop_sequence: null,
        usage: sentUsage(startUsage ?? start.usage),
        context_management: null,
      },
      parent_tool_use_id: this.#options.parentToolUseId,
      session_id: this.#options.sessionId,
      uuid: newUuid(),
      ...(meta ? { tool_use_meta: meta } : {}),
      ...this.#blockMembers(block),
      timestamp: new Date().toISOString(),
    };
    return message;
  }

  /** The members a finished block's `assistant` message adds: for a thinking block, its display and duration. */
  #blockMembers(block: AssistantContentBlock): Partial<AssistantMessage> {
    if (block.type !== 'thinking') return {};
    const duration = this.#thinkingMs;
    this.#thinkingMs = undefined;
    return {
      ...(this.#options.thinkingDisplay ? { thinking_display: this.#options.thinkingDisplay } : {}),
      ...(duration !== undefined ? { thinking_duration_ms: duration } : {}),
    };
  }

  #thinkingTokens(text: string): ThinkingTokensMessage | undefined {
    const block = this.#thinking;
    if (!block) return undefined;
    block.chars += text.length;
    // Claude Code's rough count: a token per 4 characters.
    const estimate = Math.round(block.chars / 4);
    const delta = estimate - block.estimate;
    if (delta <= 0) return undefined;
    block.estimate = estimate;
    return {
      type: 'system',
      subtype: 'thinking_tokens',
      estimated_tokens: estimate,
      estimated_tokens_delta: delta,
      uuid: newUuid(),
      session_id: this.#options.sessionId,
    };
  }
}

/** A block as an `assistant` message carries it: a text block without the API's `citations: null`. */
function sentBlock(block: AssistantContentBlock): AssistantContentBlock {
  if (block.type !== 'text' || block.citations !== null) return block;
  const { citations: _, ...rest } = block;
  return rest;
}

/** Usage as the API sent it: the members the provider filled with null left out. */
function sentUsage(usage: ApiUsage): ApiUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null && v !== undefined)) as ApiUsage;
}

/** Blocks whose open end Claude Code does not close with a `content_block_stop` when it cuts a response. */
const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

/** A cut response's usage as Claude Code's closing `message_delta` carries it (every member, zeros for none). */
function closingUsage(usage: ApiUsage): DeltaUsage {
  return {
    output_tokens_details: { thinking_tokens: 0 },
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    input_tokens: usage.input_tokens,
    iterations: [],
    output_tokens: usage.output_tokens,
    server_tool_use: { web_fetch_requests: 0, web_search_requests: 0 },
    fallback_credit: null,
  };
}

const isThinkingEvent = (event: StreamEvent) =>
  (event.type === 'content_block_start' && event.content_block.type === 'thinking') ||
  (event.type === 'content_block_delta' && event.delta.type === 'thinking_delta');
