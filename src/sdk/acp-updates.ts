/**
 * The ACP projection: AgentMessage stream → ACP SessionUpdates. Pure and incremental: feed
 * messages in order with `push()`. Streamed text is emitted once: as `stream_event` deltas
 * when the stream has them, else as the final blocks. Every `tool_call` gets exactly one
 * terminal `tool_call_update` (completed or failed; calls left open when a prompt ends are
 * failed). TodoWrite calls become `plan` updates (full replace) instead of tool cards.
 * Subagent text stays inside its Task card (its tool calls are shown). The prompt (its echo on
 * the stream) becomes `user_message_chunk`s unless the projector is told not to show it.
 */
import { isInterruptionNotice, withoutToolUseErrorTags } from '../messages/notices.ts';
import { BlockPositions, StreamProjection } from '../messages/projection.ts';
import type {
  AgentMessage,
  AssistantMessage,
  StreamEventMessage,
  SystemMessage,
  ToolProgressMessage,
  ToolResultBlock,
  UserMessage,
} from '../messages/types.ts';
import type { ContentBlock, PlanEntry, SessionUpdate, ToolCallContent } from './acp-types.ts';
import { fileDiff, toolDiffs, toolKind, toolLocations, toolTitle } from './tool-info.ts';

const INTERRUPTED = 'Tool call did not finish: the prompt ended first';

export class AcpUpdateProjector extends StreamProjection<SessionUpdate> {
  /** Block indexes that arrived as deltas, per API message id. */
  readonly #streamed = new Map<string, Set<number>>();
  readonly #positions = new BlockPositions();
  #streamingMessage?: string;
  readonly #open = new Map<string, { name: string; input: Record<string, unknown> }>();
  readonly #todos = new Map<string, Record<string, unknown>>();
  readonly #lastOutput = new Map<string, string>();
  /** The session's folder (from system/init): tool paths are reported absolute. */
  #cwd = '';
  readonly #showPrompts: boolean;

  /**
   * `showPrompts: false` drops the prompt echoes (`user` with `isReplay`): during a live ACP
   * prompt the client sent the prompt itself, and `user_message_chunk` is for session/load's
   * replay of the history. Default: shown.
   */
  constructor(options: { showPrompts?: boolean } = {}) {
    super();
    this.#showPrompts = options.showPrompts ?? true;
  }

  protected override system(message: SystemMessage): SessionUpdate[] {
    if (message.subtype === 'init') this.#cwd = message.cwd;
    return [];
  }

  protected override progress(message: ToolProgressMessage): SessionUpdate[] {
    if (!this.#open.has(message.tool_use_id)) return [];
    const output = message.output ?? '';
    const first = !this.#lastOutput.has(message.tool_use_id);
    if (!first && output === this.#lastOutput.get(message.tool_use_id)) return [];
    this.#lastOutput.set(message.tool_use_id, output);
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: message.tool_use_id,
        status: 'in_progress',
        ...(output ? { content: [textContent(output)] } : {}),
      },
    ];
  }

  protected override result(): SessionUpdate[] {
    return this.finish();
  }

  /** Fails the tool calls still open (the prompt ended) and resets the per-prompt state. */
  finish(): SessionUpdate[] {
    const updates: SessionUpdate[] = [...this.#open.keys()].map((toolCallId) => ({
      sessionUpdate: 'tool_call_update' as const,
      toolCallId,
      status: 'failed' as const,
      content: [textContent(INTERRUPTED)],
    }));
    this.#open.clear();
    this.#todos.clear();
    this.#lastOutput.clear();
    this.#streamed.clear();
    this.#positions.clear();
    return updates;
  }

  protected streamEvent(message: StreamEventMessage): SessionUpdate[] {
    const event = message.event;
    if (message.parent_tool_use_id !== null) return [];
    if (event.type === 'message_start') {
      // A new API message: its blocks count from 0 again, also when a provider reuses ids across responses.
      this.#streamingMessage = event.message.id;
      this.#streamed.delete(event.message.id);
      this.#positions.started(event.message.id);
    }
    if (!this.#streamingMessage) return [];
    if (
      event.type === 'content_block_start' &&
      (event.content_block.type === 'text' || event.content_block.type === 'thinking')
    ) {
      let set = this.#streamed.get(this.#streamingMessage);
      if (!set) this.#streamed.set(this.#streamingMessage, (set = new Set()));
      set.add(event.index);
    }
    if (event.type !== 'content_block_delta') return [];
    if (event.delta.type === 'text_delta' && event.delta.text)
      return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta.text } }];
    if (event.delta.type === 'thinking_delta' && event.delta.thinking)
      return [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.delta.thinking } }];
    return [];
  }

  protected assistant(message: AssistantMessage): SessionUpdate[] {
    const id = message.message.id;
    const updates: SessionUpdate[] = [];
    for (const block of message.message.content) {
      const index = this.#positions.next(id);
      const streamed = !message.error && this.#streamed.get(id)?.has(index);
      if (block.type === 'tool_use') {
        if (block.name === 'TodoWrite') {
          this.#todos.set(block.id, block.input);
          continue;
        }
        this.#open.set(block.id, { name: block.name, input: block.input });
        const diffs = toolDiffs(block.name, block.input, this.#cwd);
        const locations = toolLocations(block.name, block.input, this.#cwd);
        updates.push({
          sessionUpdate: 'tool_call',
          toolCallId: block.id,
          title: toolTitle(block.name, block.input),
          kind: toolKind(block.name),
          status: 'pending',
          rawInput: block.input,
          ...(diffs ? { content: diffs } : {}),
          ...(locations ? { locations } : {}),
        });
      } else if (message.parent_tool_use_id === null && !streamed) {
        if (block.type === 'text' && block.text)
          updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: block.text } });
        if (block.type === 'thinking' && block.thinking)
          updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: block.thinking } });
      }
    }
    return updates;
  }

  protected user(message: UserMessage): SessionUpdate[] {
    if (message.isReplay && !this.#showPrompts) return [];
    const content = message.message.content;
    const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
    const updates: SessionUpdate[] = [];
    for (const block of blocks) {
      if (block.type === 'tool_result') updates.push(...this.#toolResult(block, message.tool_use_result));
      else if (message.parent_tool_use_id === null) {
        // The interruption notice is bookkeeping of the history, not something the user said.
        if (block.type === 'text' && block.text && !isInterruptionNotice(block.text)) {
          updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: block.text } });
        }
        if (block.type === 'image')
          updates.push({
            sessionUpdate: 'user_message_chunk',
            content: { type: 'image', data: block.source.data, mimeType: block.source.media_type },
          });
      }
    }
    return updates;
  }

  #toolResult(block: ToolResultBlock, structured: unknown): SessionUpdate[] {
    const todo = this.#todos.get(block.tool_use_id);
    if (todo) {
      this.#todos.delete(block.tool_use_id);
      return block.is_error ? [] : [{ sessionUpdate: 'plan', entries: planEntries(todo) }];
    }
    const call = this.#open.get(block.tool_use_id);
    if (!call) return [];
    this.#open.delete(block.tool_use_id);
    const failed = block.is_error === true;
    const diffs = failed
      ? undefined
      : (fileDiff(call.name, call.input, structured) ?? toolDiffs(call.name, call.input, this.#cwd));
    const content: ToolCallContent[] = [...(diffs ?? []), ...resultContent(block)];
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: block.tool_use_id,
        status: failed ? 'failed' : 'completed',
        content,
        rawOutput: structured ?? resultText(block),
      },
    ];
  }
}

/** Projects a whole stream (e.g. a stored transcript) at once. */
export function toAcpUpdates(messages: Iterable<AgentMessage>): SessionUpdate[] {
  return new AcpUpdateProjector().pushAll(messages);
}

/** TodoWrite's todos as plan entries. */
export function planEntries(input: Record<string, unknown>): PlanEntry[] {
  const todos = Array.isArray(input.todos) ? input.todos : [];
  return todos.map((todo: Record<string, unknown>) => ({
    content: typeof todo.content === 'string' ? todo.content : '',
    status: todo.status === 'in_progress' || todo.status === 'completed' ? todo.status : 'pending',
    priority: todo.priority === 'high' || todo.priority === 'low' ? todo.priority : 'medium',
  }));
}

function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

function resultText(block: ToolResultBlock): string {
  return withoutToolUseErrorTags(
    typeof block.content === 'string'
      ? block.content
      : block.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
  );
}

function resultContent(block: ToolResultBlock): ToolCallContent[] {
  if (typeof block.content === 'string')
    return block.content ? [textContent(withoutToolUseErrorTags(block.content))] : [];
  return block.content.map((b): ToolCallContent => {
    const content: ContentBlock =
      b.type === 'text'
        ? { type: 'text', text: withoutToolUseErrorTags(b.text) }
        : { type: 'image', data: b.source.data, mimeType: b.source.media_type };
    return { type: 'content', content };
  });
}
