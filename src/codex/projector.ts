/**
 * The Codex projection: agentpipe's message stream → Codex item events (items.ts), pure and
 * incremental like the ACP projector: feed the messages of a turn in order with `push()`, then
 * `finish()` when its `result` came. Texts stream as deltas when the stream has `stream_event`s and
 * complete at their `content_block_stop` (else with their final block); a tool call opens an item
 * with its `tool_use` and completes it with its `tool_result`; a subagent's messages stay inside its
 * Task item. Every item started is completed exactly once (calls left open when the turn ends are
 * failed by `finish`).
 */
import path from 'node:path';
import type { AgentMessage } from '../messages/types.ts';
import { BlockPositions, StreamProjection } from '../messages/projection.ts';
import type {
  AssistantMessage,
  StreamEventMessage,
  SystemMessage,
  ToolProgressMessage,
  ToolResultBlock,
  UserMessage,
} from '../messages/types.ts';
import { isInterruptionNotice } from '../messages/notices.ts';
import { planEntries } from '../sdk/acp-updates.ts';
import type { CodexItem, ItemEvent, PlanStep, RequestUsage, UserPart } from './items.ts';
import { completeToolItem, fileVersions, hunksOf, openToolItem } from './tool-items.ts';

/** A tool call's open item. */
interface OpenCall {
  item: CodexItem;
  name: string;
  input: Record<string, unknown>;
  started: number;
  /** Command output already sent as deltas, and the last progress tail it came from. */
  shown: string;
  tail: string;
  /**
   * Trailing whitespace of the output so far, not sent yet: the final output may end without it (the
   * Bash tool trims it), and the deltas must add up to the item's `aggregatedOutput`.
   */
  held: string;
}

export interface ProjectorOptions {
  /** The session's folder (paths of file changes are absolute, the turn's diff relative to it). */
  cwd: string;
  /** Milliseconds now (tests inject it). */
  now?: () => number;
}

export class CodexItemProjector extends StreamProjection<ItemEvent> {
  #cwd: string;
  readonly #now: () => number;
  /** Open tool calls by tool_use id. */
  readonly #open = new Map<string, OpenCall>();
  /** Text and thinking blocks streaming now, by `<message id>#<index>`. */
  readonly #streaming = new Map<string, CodexItem & { kind: 'agentMessage' | 'reasoning' }>();
  /** Streamed blocks completed at their `content_block_stop`, whose final message is still to come. */
  readonly #completedBlocks = new Set<string>();
  readonly #positions = new BlockPositions();
  #streamingMessage?: string;
  /** Input tokens of the streamed message (`message_start`), where its `message_delta` has none. */
  #streamingInput = 0;
  /** Model requests whose usage was reported (from `message_delta`, or a final assistant message). */
  readonly #usageReported = new Set<string>();
  /** Tool calls refused before they ran (`system/permission_denied`, or the client's decline). */
  readonly #declined = new Set<string>();
  /** StructuredOutput calls: their input is the answer once accepted. */
  readonly #structured = new Map<string, Record<string, unknown>>();
  /** Files the turn changed: the first text before and the latest after. */
  readonly #files = new Map<string, { before: string | null; after: string }>();

  constructor(options: ProjectorOptions) {
    super();
    this.#cwd = options.cwd;
    this.#now = options.now ?? Date.now;
  }

  /** Marks a tool call refused (the client declined it): its item completes as `declined`. */
  decline(toolUseId: string): void {
    this.#declined.add(toolUseId);
  }

  protected override system(message: SystemMessage): ItemEvent[] {
    if (message.subtype === 'init') this.#cwd = message.cwd;
    if (message.subtype === 'permission_denied') this.#declined.add(message.tool_use_id);
    if (message.subtype !== 'api_retry') return [];
    return [
      {
        type: 'retry',
        message:
          `Reconnecting... ${message.attempt}/${message.max_retries} ` +
          `(${message.error}${message.error_status ? ` ${message.error_status}` : ''})`,
      },
    ];
  }

  /** Ends the turn: calls still open complete as failed; the per-turn state is reset. */
  finish(): ItemEvent[] {
    const events: ItemEvent[] = [];
    for (const block of this.#streaming.values()) events.push({ type: 'completed', item: block });
    for (const call of this.#open.values()) {
      const item = call.item;
      if (item.kind === 'commandExecution' || item.kind === 'mcpToolCall')
        events.push({ type: 'completed', item: { ...item, status: 'failed', durationMs: this.#now() - call.started } });
      else if (item.kind === 'fileChange' || item.kind === 'webSearch')
        events.push({ type: 'completed', item: { ...item, status: 'failed' } });
    }
    this.#open.clear();
    this.#streaming.clear();
    this.#completedBlocks.clear();
    this.#positions.clear();
    this.#declined.clear();
    this.#structured.clear();
    this.#files.clear();
    this.#streamingMessage = undefined;
    this.#usageReported.clear();
    return events;
  }

  protected streamEvent(message: StreamEventMessage): ItemEvent[] {
    if (message.parent_tool_use_id !== null) return [];
    const event = message.event;
    if (event.type === 'message_start') {
      this.#streamingMessage = event.message.id;
      this.#positions.started(event.message.id);
      this.#streamingInput = event.message.usage.input_tokens;
    }
    const id = this.#streamingMessage;
    if (!id) return [];
    if (event.type === 'message_delta') {
      // The request's usage: assistant messages carry `stop_reason: null` and no output count (as Claude Code's do).
      const u = event.usage;
      return this.#usage(id, {
        input_tokens: u.input_tokens ?? this.#streamingInput,
        cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
        cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
        output_tokens: u.output_tokens,
        thinking_tokens: 0,
      });
    }
    if (event.type === 'content_block_start') {
      const block = event.content_block;
      if (block.type !== 'text' && block.type !== 'thinking') return [];
      const item = {
        kind: block.type === 'text' ? 'agentMessage' : 'reasoning',
        id: `${id}_${event.index}`,
        text: '',
      } as const;
      this.#streaming.set(`${id}#${event.index}`, item);
      return [{ type: 'started', item }];
    }
    if (event.type === 'content_block_stop') {
      // The block is whole: its item completes now, before the next block's (its final message may come later).
      const key = `${id}#${event.index}`;
      const done = this.#streaming.get(key);
      if (!done) return [];
      this.#streaming.delete(key);
      this.#completedBlocks.add(key);
      return [{ type: 'completed', item: done }];
    }
    if (event.type !== 'content_block_delta') return [];
    const item = this.#streaming.get(`${id}#${event.index}`);
    if (!item) return [];
    const delta =
      event.delta.type === 'text_delta'
        ? event.delta.text
        : event.delta.type === 'thinking_delta'
          ? event.delta.thinking
          : '';
    if (!delta) return [];
    item.text += delta;
    return [{ type: 'delta', itemId: item.id, stream: item.kind, delta }];
  }

  protected assistant(message: AssistantMessage): ItemEvent[] {
    // Subagents work inside their Task item; a failed request's synthetic message is the turn's error.
    if (message.parent_tool_use_id !== null || message.error) return [];
    const id = message.message.id;
    const events: ItemEvent[] = [];
    for (const block of message.message.content) {
      const index = this.#positions.next(id);
      if (block.type === 'text' || block.type === 'thinking') {
        const text = block.type === 'text' ? block.text : block.thinking;
        const key = `${id}#${index}`;
        if (this.#completedBlocks.delete(key)) continue;
        const streamed = this.#streaming.get(key);
        this.#streaming.delete(key);
        const kind = block.type === 'text' ? 'agentMessage' : 'reasoning';
        const item = { kind, id: streamed?.id ?? `${id}_${index}`, text } as const;
        if (!streamed && !text) continue;
        if (!streamed) events.push({ type: 'started', item });
        events.push({ type: 'completed', item });
      } else if (block.type === 'tool_use') events.push(...this.#toolUse(block.id, block.name, block.input));
    }
    const usage = message.message.usage;
    if (message.message.stop_reason !== null && usage)
      events.push(
        ...this.#usage(id, {
          input_tokens: usage.input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
          cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
          output_tokens: usage.output_tokens,
          thinking_tokens: 0,
        }),
      );
    return events;
  }

  /** A model request's usage, once per request whichever message carried it. */
  #usage(id: string, usage: RequestUsage): ItemEvent[] {
    if (this.#usageReported.has(id)) return [];
    this.#usageReported.add(id);
    return [{ type: 'usage', usage }];
  }

  #toolUse(id: string, name: string, input: Record<string, unknown>): ItemEvent[] {
    if (name === 'TodoWrite') return [{ type: 'plan', steps: planSteps(input) }];
    if (name === 'StructuredOutput') {
      this.#structured.set(id, input);
      return [];
    }
    const item = openToolItem(name, id, input, this.#cwd);
    if (!item) return [];
    this.#open.set(id, { item, name, input, started: this.#now(), shown: '', tail: '', held: '' });
    return [{ type: 'started', item }];
  }

  protected user(message: UserMessage): ItemEvent[] {
    if (message.parent_tool_use_id !== null) return [];
    const content = message.message.content;
    if (message.isReplay) {
      const parts = userParts(content);
      if (!parts.length) return [];
      const item: CodexItem = { kind: 'userMessage', id: message.uuid, content: parts };
      return [
        { type: 'started', item },
        { type: 'completed', item },
      ];
    }
    if (typeof content === 'string') return [];
    return content.flatMap((block) =>
      block.type === 'tool_result' ? this.#toolResult(block, message.tool_use_result) : [],
    );
  }

  #toolResult(block: ToolResultBlock, structured: unknown): ItemEvent[] {
    const answer = this.#structured.get(block.tool_use_id);
    if (answer) {
      this.#structured.delete(block.tool_use_id);
      if (block.is_error) return [];
      const item: CodexItem = { kind: 'agentMessage', id: block.tool_use_id, text: JSON.stringify(answer) };
      return [
        { type: 'started', item },
        { type: 'completed', item },
      ];
    }
    const call = this.#open.get(block.tool_use_id);
    if (!call) return [];
    this.#open.delete(block.tool_use_id);
    const item = completeToolItem(call.item, block, structured, {
      declined: this.#declined.has(block.tool_use_id),
      durationMs: this.#now() - call.started,
      input: call.input,
      toolName: call.name,
    });
    const events: ItemEvent[] = [];
    if (
      item.kind === 'commandExecution' &&
      item.status !== 'declined' &&
      item.output.startsWith(call.shown) &&
      item.output.length > call.shown.length
    )
      events.push({
        type: 'delta',
        itemId: item.id,
        stream: 'commandOutput',
        delta: item.output.slice(call.shown.length),
      });
    events.push({ type: 'completed', item });
    if (item.kind === 'fileChange' && item.status === 'completed') events.push(...this.#turnDiff(call, structured));
    return events;
  }

  /** A command's output so far (the tail of `tool_progress`) as a delta of what was shown. */
  protected override progress(message: ToolProgressMessage): ItemEvent[] {
    const toolUseId = message.tool_use_id;
    const tail = message.output;
    const call = this.#open.get(toolUseId);
    if (!call || call.item.kind !== 'commandExecution' || !tail || tail === call.tail) return [];
    const text = call.held + tailDelta(call.tail, tail);
    call.tail = tail;
    const delta = text.trimEnd();
    call.held = text.slice(delta.length);
    if (!delta) return [];
    call.shown += delta;
    return [{ type: 'delta', itemId: call.item.id, stream: 'commandOutput', delta }];
  }

  /** The turn's diff over every file it changed, after a file change. */
  #turnDiff(call: OpenCall, structured: unknown): ItemEvent[] {
    const versions = fileVersions(call.name, call.input, structured);
    if (!versions) return [];
    const known = this.#files.get(versions.path);
    this.#files.set(versions.path, { before: known ? known.before : versions.before, after: versions.after });
    const parts = [...this.#files].map(([file, v]) =>
      gitDiff(path.relative(this.#cwd, file) || file, v.before, v.after),
    );
    return [{ type: 'diff', diff: parts.join('') }];
  }
}

/** Projects a whole stream (e.g. a stored transcript) at once; open items are failed at the end. */
export function toCodexItemEvents(messages: Iterable<AgentMessage>, cwd = ''): ItemEvent[] {
  const projector = new CodexItemProjector({ cwd });
  return [...projector.pushAll(messages), ...projector.finish()];
}

/** What was appended between two tails of a growing output (each the last characters of it). */
export function tailDelta(previous: string, tail: string): string {
  if (tail.startsWith(previous)) return tail.slice(previous.length);
  // The window slid: the longest end of `previous` that starts `tail` is where the new text begins.
  for (let overlap = Math.min(previous.length, tail.length); overlap > 0; overlap--)
    if (previous.endsWith(tail.slice(0, overlap))) return tail.slice(overlap);
  return tail;
}

/** One file's change in `git diff` form. */
function gitDiff(file: string, before: string | null, after: string): string {
  const head = `diff --git a/${file} b/${file}\n`;
  if (before === null) {
    const lines = after.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return (
      `${head}new file mode 100644\n--- /dev/null\n+++ b/${file}\n` +
      `@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}\n`).join('')}`
    );
  }
  return `${head}--- a/${file}\n+++ b/${file}\n${hunksOf(file, before, after)}`;
}

/** TodoWrite's todos as plan steps. */
function planSteps(input: Record<string, unknown>): PlanStep[] {
  return planEntries(input).map((e) => ({
    step: e.content,
    status: e.status === 'in_progress' ? 'inProgress' : e.status,
  }));
}

/** The prompt's text and images. */
function userParts(content: UserMessage['message']['content']): UserPart[] {
  if (typeof content === 'string')
    return content && !isInterruptionNotice(content) ? [{ type: 'text', text: content }] : [];
  const parts: UserPart[] = [];
  for (const block of content) {
    if (block.type === 'text' && block.text) parts.push({ type: 'text', text: block.text });
    if (block.type === 'image' && block.source.type === 'base64')
      parts.push({ type: 'image', url: `data:${block.source.media_type};base64,${block.source.data}` });
  }
  return parts;
}
