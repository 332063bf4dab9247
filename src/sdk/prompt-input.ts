/**
 * Turns a `query()` prompt (a string or an async iterable of user messages) into input
 * messages, and counts what was sent so the input can end once every prompt has its result.
 */
import { promptMessage } from '../messages/user.ts';
import type { InputUserMessage } from '../messages/control.ts';
import type { PromptMessage } from './types.ts';

/** The user messages of a prompt, validated. */
export async function* promptMessages(prompt: string | AsyncIterable<PromptMessage>): AsyncGenerator<InputUserMessage> {
  if (typeof prompt === 'string') {
    yield promptMessage(prompt);
    return;
  }
  for await (const item of prompt) {
    if (item?.type !== 'user' || typeof item.message !== 'object' || item.message === null) {
      throw new TypeError(
        `query(): every prompt message must be {type: "user", message: {role: "user", content}}, got ` +
          `${JSON.stringify(item)?.slice(0, 120)}`,
      );
    }
    const content = item.message.content;
    if (typeof content !== 'string' && !Array.isArray(content))
      throw new TypeError('query(): message.content must be a string or an array of blocks');
    yield {
      type: 'user',
      message: { role: 'user', content },
      parent_tool_use_id: item.parent_tool_use_id ?? null,
      session_id: item.session_id ?? '',
      ...(item.uuid ? { uuid: item.uuid } : {}),
      ...(typeof item._meta?.traceparent === 'string' ? { _meta: item._meta } : {}),
    };
  }
}

/** Resolves once `count()` reached a target; used to keep the input open until the last result. */
export class Counter {
  #value = 0;
  #waiters: Array<{ target: number; resolve: () => void }> = [];
  get value(): number {
    return this.#value;
  }
  add(): void {
    this.#value++;
    this.#waiters = this.#waiters.filter((w) => (w.target <= this.#value ? (w.resolve(), false) : true));
  }
  reached(target: number): Promise<void> {
    if (this.#value >= target) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ target, resolve }));
  }
  /** Releases every waiter (the stream ended). */
  releaseAll(): void {
    for (const w of this.#waiters) w.resolve();
    this.#waiters = [];
  }
}
