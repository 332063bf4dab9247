/**
 * Hooks and a tape: recording each event's verdict and the messages its hooks emitted, and serving them
 * (`--replay-tools tape`: command hooks are programs with side effects like any tool, so they do not run; the recorded
 * messages are emitted again and the recorded verdict decides). Hooks are matched by event, tool_use id and matcher
 * value, in the order they ran.
 */
import type { AgentMessage } from '../../messages/types.ts';
import type { HookLine } from '../../model/tape/format.ts';
import type { HookCall, HookEvent, HookRunner, HookVerdict } from './types.ts';

const keyOf = (event: string, toolUseId: string | undefined, match: string | undefined) =>
  `${event}\u0000${toolUseId ?? ''}\u0000${match ?? ''}`;

/** Runs the hooks of `inner` and records what they decided and emitted. */
export class RecordingHooks implements HookRunner {
  readonly #inner: HookRunner;
  readonly #write: (line: HookLine) => void;

  constructor(inner: HookRunner, write: (line: HookLine) => void) {
    this.#inner = inner;
    this.#write = write;
  }

  has(event: HookEvent): boolean {
    return this.#inner.has(event);
  }

  async run(event: HookEvent, fields: Record<string, unknown>, call: HookCall): Promise<HookVerdict> {
    const messages: AgentMessage[] = [];
    const emit = (message: AgentMessage) => {
      messages.push(message);
      return call.emit(message);
    };
    const verdict = await this.#inner.run(event, fields, { ...call, emit });
    this.#write({
      type: 'hook',
      event,
      ...(call.toolUseId !== undefined ? { tool_use_id: call.toolUseId } : {}),
      ...(call.matchValue !== undefined ? { match: call.matchValue } : {}),
      verdict: { ...verdict },
      messages,
    });
    return verdict;
  }
}

/** Answers hook events from the tape until `live()` says the run went past its fork point. */
export class ServingHooks implements HookRunner {
  readonly #inner: HookRunner;
  readonly #queues = new Map<string, HookLine[]>();
  readonly #options: { file: string; onMismatch: (text: string) => string; live: () => boolean };

  constructor(
    inner: HookRunner,
    lines: HookLine[],
    options: { file: string; onMismatch: (text: string) => string; live: () => boolean },
  ) {
    this.#inner = inner;
    this.#options = options;
    for (const line of lines) {
      const key = keyOf(line.event, line.tool_use_id, line.match);
      const queue = this.#queues.get(key);
      if (queue) queue.push(line);
      else this.#queues.set(key, [line]);
    }
  }

  has(event: HookEvent): boolean {
    return this.#inner.has(event);
  }

  async run(event: HookEvent, fields: Record<string, unknown>, call: HookCall): Promise<HookVerdict> {
    if (this.#options.live()) return this.#inner.run(event, fields, call);
    const line = this.#queues.get(keyOf(event, call.toolUseId, call.matchValue))?.shift();
    if (!line) {
      this.#options.onMismatch(
        `Replay: the ${event} hooks${call.toolUseId ? ` of ${call.toolUseId}` : ''} ran, and the tape ` +
          `${this.#options.file} holds no such run`,
      );
      return { ran: false, additionalContext: [] };
    }
    for (const message of line.messages) await call.emit({ ...message, session_id: call.sessionId } as AgentMessage);
    return line.verdict;
  }
}
