/**
 * What every projection of the message stream onto another protocol shares (the ACP session
 * updates, Codex's item events): messages are fed in order with `push()` and each kind goes to its
 * own method; kinds a projection does not override project to nothing. Also the one count of where
 * a final content block stands in its API message (`BlockPositions`).
 */
import type {
  AgentMessage,
  AssistantMessage,
  ResultMessage,
  StreamEventMessage,
  SystemMessage,
  ToolProgressMessage,
  UserMessage,
} from './types.ts';

export abstract class StreamProjection<Update> {
  /** The updates one message projects to (often none). */
  push(message: AgentMessage): Update[] {
    switch (message.type) {
      case 'system':
        return this.system(message);
      case 'stream_event':
        return this.streamEvent(message);
      case 'assistant':
        return this.assistant(message);
      case 'user':
        return this.user(message);
      case 'tool_progress':
        return this.progress(message);
      case 'result':
        return this.result(message);
      default:
        return [];
    }
  }

  /** The updates of several messages in order (a stored transcript, say), one after the other. */
  pushAll(messages: Iterable<AgentMessage>): Update[] {
    const updates: Update[] = [];
    for (const message of messages) updates.push(...this.push(message));
    return updates;
  }

  protected abstract streamEvent(message: StreamEventMessage): Update[];
  protected abstract assistant(message: AssistantMessage): Update[];
  protected abstract user(message: UserMessage): Update[];

  protected system(_message: SystemMessage): Update[] {
    return [];
  }

  protected progress(_message: ToolProgressMessage): Update[] {
    return [];
  }

  protected result(_message: ResultMessage): Update[] {
    return [];
  }
}

/**
 * Where each final content block stands in its API message. An API message's blocks come as
 * `assistant` messages that share its id (one block each, as Claude Code sends them), so the n-th
 * block seen with an id is the one that streamed as `content_block_*` events with index n: a
 * projection that showed the block as it streamed recognises it when its final message comes.
 * A `message_start` counts its id from 0 again (a provider may reuse ids across responses).
 */
export class BlockPositions {
  readonly #seen = new Map<string, number>();

  /** An API message with this id started streaming. */
  started(id: string): void {
    this.#seen.delete(id);
  }

  /** The position of the next final block of the API message `id`. */
  next(id: string): number {
    const index = this.#seen.get(id) ?? 0;
    this.#seen.set(id, index + 1);
    return index;
  }

  clear(): void {
    this.#seen.clear();
  }
}
