/**
 * Lets an ACP client pipeline: the SDK's agent answers `-32600 must be initialized` to any request
 * that arrives before its `initialize` was answered, yet a client may legally write `initialize`
 * and `session/new` together. This wrapper holds the messages that follow an `initialize` request
 * until its response has been written, so the agent sees them in a legal order.
 */

import { isRecord } from '../process/guards.ts';

type Message = Record<string, unknown>;
/** The message streams `ndJsonStream` gives. */
export interface MessageStream<T> {
  readable: ReadableStream<T>;
  writable: WritableStream<T>;
}

const isInitialize = (m: unknown): m is Message => isRecord(m) && m.method === 'initialize' && 'id' in m;
const isResponseTo = (m: unknown, id: unknown): boolean =>
  isRecord(m) && !('method' in m) && m.id === id && ('result' in m || 'error' in m);

export function holdUntilInitialized<T>(stream: MessageStream<T>): MessageStream<T> {
  let gate: Promise<void> = Promise.resolve();
  let waiting: { id: unknown; release: () => void } | undefined;
  const readable = stream.readable.pipeThrough(
    new TransformStream<T, T>({
      async transform(message, controller) {
        await gate;
        controller.enqueue(message);
        if (isInitialize(message)) {
          let release: () => void = () => {};
          gate = new Promise((resolve) => (release = resolve));
          waiting = { id: message.id, release };
        }
      },
    }),
  );
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<T>({
    async write(message) {
      await writer.write(message);
      if (waiting && isResponseTo(message, waiting.id)) {
        waiting.release();
        waiting = undefined;
      }
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable, writable };
}
