/**
 * Builds complete content blocks from raw stream events. Each finished block is handed out
 * at its `content_block_stop`, so the loop can emit one `assistant` message per block.
 */
import type { ApiMessage, ApiUsage, AssistantContentBlock, StreamEvent } from '../messages/types.ts';
import { isRecord } from '../process/guards.ts';

/**
 * Text streamed into one field of a block. The pieces are joined every 1,024: `text += delta`
 * builds a rope that keeps every delta alive until the end (a million small deltas held ~50 MB).
 */
class Pieces {
  #joined: string;
  readonly #parts: string[] = [];
  constructor(start: string) {
    this.#joined = start;
  }
  add(piece: string): void {
    if (this.#parts.push(piece) >= 1024) this.#flush();
  }
  toString(): string {
    this.#flush();
    return this.#joined;
  }
  #flush(): void {
    if (this.#parts.length === 0) return;
    this.#joined += this.#parts.join('');
    this.#parts.length = 0;
  }
}

type Streamed = 'text' | 'thinking' | 'signature' | 'json';

export class MessageAssembler {
  message?: ApiMessage;
  /** `message_start`'s usage as the provider gave it (the final usage goes into `message`). */
  startUsage?: ApiUsage;
  readonly #blocks = new Map<number, AssistantContentBlock>();
  /** The fields of open blocks being streamed (a tool call's input as JSON text under `json`). */
  readonly #pieces = new Map<number, Partial<Record<Streamed, Pieces>>>();
  /** Finished blocks in order. */
  readonly finished: AssistantContentBlock[] = [];
  /** True once any content block started (a retry would then repeat deltas). */
  started = false;

  /**
   * Ends a text block cut short by an interrupt: the text streamed so far becomes a finished
   * block (returned). Thinking without its signature and tool calls without their whole input
   * are dropped: the API would refuse them.
   */
  cutShort(): AssistantContentBlock | undefined {
    for (const [index, block] of this.#blocks) this.#settle(index, block);
    const open = [...this.#blocks.entries()]
      .sort(([a], [b]) => a - b)
      .find(([, block]) => block.type === 'text' && block.text !== '');
    this.#blocks.clear();
    this.#pieces.clear();
    if (!open) return undefined;
    this.finished.push(open[1]);
    return open[1];
  }

  /** Feeds one event; returns the block it finished, if any. */
  add(event: StreamEvent): AssistantContentBlock | undefined {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message, content: [], usage: { ...event.message.usage } };
        this.startUsage = { ...event.message.usage };
        return undefined;
      case 'content_block_start':
        this.started = true;
        this.#blocks.set(event.index, structuredClone(event.content_block));
        this.#pieces.set(event.index, {});
        return undefined;
      case 'content_block_delta': {
        const block = this.#blocks.get(event.index);
        if (!block) throw new Error(`stream: delta for unknown block ${event.index}`);
        const delta = event.delta;
        if (delta.type === 'text_delta' && block.type === 'text')
          this.#field(event.index, 'text', block.text).add(delta.text);
        else if (delta.type === 'thinking_delta' && block.type === 'thinking')
          this.#field(event.index, 'thinking', block.thinking).add(delta.thinking);
        else if (delta.type === 'signature_delta' && block.type === 'thinking')
          this.#field(event.index, 'signature', block.signature).add(delta.signature);
        else if (delta.type === 'input_json_delta' && block.type === 'tool_use')
          this.#field(event.index, 'json', '').add(delta.partial_json);
        return undefined;
      }
      case 'content_block_stop': {
        const block = this.#blocks.get(event.index);
        if (!block) return undefined;
        this.#blocks.delete(event.index);
        this.#settle(event.index, block);
        this.finished.push(block);
        return block;
      }
      case 'message_delta':
        if (this.message) {
          this.message.stop_reason = event.delta.stop_reason;
          this.message.stop_sequence = event.delta.stop_sequence;
          const u = this.message.usage;
          u.output_tokens = event.usage.output_tokens;
          // A member the provider filled with null (or an API left out) keeps message_start's count.
          if (event.usage.input_tokens != null) u.input_tokens = event.usage.input_tokens;
          if (event.usage.cache_creation_input_tokens != null)
            u.cache_creation_input_tokens = event.usage.cache_creation_input_tokens;
          if (event.usage.cache_read_input_tokens != null)
            u.cache_read_input_tokens = event.usage.cache_read_input_tokens;
        }
        return undefined;
      case 'message_stop':
        return undefined;
    }
  }

  #field(index: number, name: Streamed, start: string): Pieces {
    const fields = this.#pieces.get(index)!;
    return (fields[name] ??= new Pieces(start));
  }

  /** Writes what was streamed into the block's fields. */
  #settle(index: number, block: AssistantContentBlock): void {
    const fields = this.#pieces.get(index);
    this.#pieces.delete(index);
    if (!fields) return;
    if (block.type === 'text' && fields.text) block.text = fields.text.toString();
    if (block.type === 'thinking') {
      if (fields.thinking) block.thinking = fields.thinking.toString();
      if (fields.signature) block.signature = fields.signature.toString();
    }
    if (block.type === 'tool_use') {
      const json = fields.json?.toString() ?? '';
      if (json.trim() !== '') block.input = parseToolInput(json);
    }
  }
}

/** Parses streamed tool input JSON; invalid JSON is kept so the tool can report it. */
function parseToolInput(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return isRecord(value) ? value : { __invalid_input: json };
  } catch {
    return { __invalid_input: json };
  }
}
