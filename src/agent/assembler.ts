/**
 * Builds complete content blocks from raw stream events. Each finished block is handed out
 * at its `content_block_stop`, so the loop can emit one `assistant` message per block.
 */
import type { ApiMessage, AssistantContentBlock, StreamEvent } from '../messages/types.ts';

export class MessageAssembler {
  message?: ApiMessage;
  readonly #blocks = new Map<number, AssistantContentBlock>();
  readonly #json = new Map<number, string>();
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
    const open = [...this.#blocks.entries()]
      .sort(([a], [b]) => a - b)
      .find(([, block]) => block.type === 'text' && block.text !== '');
    this.#blocks.clear();
    this.#json.clear();
    if (!open) return undefined;
    this.finished.push(open[1]);
    return open[1];
  }

  /** Feeds one event; returns the block it finished, if any. */
  add(event: StreamEvent): AssistantContentBlock | undefined {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message, content: [], usage: { ...event.message.usage } };
        return undefined;
      case 'content_block_start':
        this.started = true;
        this.#blocks.set(event.index, structuredClone(event.content_block));
        if (event.content_block.type === 'tool_use') this.#json.set(event.index, '');
        return undefined;
      case 'content_block_delta': {
        const block = this.#blocks.get(event.index);
        if (!block) throw new Error(`stream: delta for unknown block ${event.index}`);
        const delta = event.delta;
        if (delta.type === 'text_delta' && block.type === 'text') block.text += delta.text;
        else if (delta.type === 'thinking_delta' && block.type === 'thinking') block.thinking += delta.thinking;
        else if (delta.type === 'signature_delta' && block.type === 'thinking') block.signature += delta.signature;
        else if (delta.type === 'input_json_delta' && block.type === 'tool_use')
          this.#json.set(event.index, this.#json.get(event.index)! + delta.partial_json);
        return undefined;
      }
      case 'content_block_stop': {
        const block = this.#blocks.get(event.index);
        if (!block) return undefined;
        this.#blocks.delete(event.index);
        if (block.type === 'tool_use') {
          const json = this.#json.get(event.index) ?? '';
          block.input = json.trim() === '' ? block.input : parseToolInput(json);
        }
        this.finished.push(block);
        return block;
      }
      case 'message_delta':
        if (this.message) {
          this.message.stop_reason = event.delta.stop_reason;
          this.message.stop_sequence = event.delta.stop_sequence;
          const u = this.message.usage;
          u.output_tokens = event.usage.output_tokens;
          if (event.usage.input_tokens !== null) u.input_tokens = event.usage.input_tokens;
          if (event.usage.cache_creation_input_tokens !== null)
            u.cache_creation_input_tokens = event.usage.cache_creation_input_tokens;
          if (event.usage.cache_read_input_tokens !== null)
            u.cache_read_input_tokens = event.usage.cache_read_input_tokens;
        }
        return undefined;
      case 'message_stop':
        return undefined;
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

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
