/**
 * One stream-json session over any line transport: input messages in, NDJSON lines out.
 * The session is opened as on stdio (open.ts: resume, transcript, credentials, schema), then
 * runner → bounded queue → stream-json; used by the WebSocket transports (`--sdk-url`, `serve`).
 * `write` is awaited for every line, so a slow transport pauses this session only.
 */
import type { ParsedLine } from '../messages/parse.ts';
import type { ResultMessage } from '../messages/types.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { StreamJsonFormat } from '../pipeline/format/stream-json.ts';
import type { OutputLine } from '../pipeline/format/types.ts';
import type { SessionOptions } from './options.ts';
import type { Session } from './session.ts';
import { openSession, SessionSetupError, setupErrorResult } from './open.ts';

export interface StreamSessionOptions {
  options: SessionOptions;
  input: AsyncIterable<ParsedLine>;
  /** Writes one NDJSON line (with its `\n`), from a bounded queue; resolves when the transport can take more. */
  write?(text: string): Promise<void>;
  /**
   * Instead of `write`: gets each line typed, as it is produced, in order (no queue, no encoding); its promise, when it
   * returns one, holds the producer back.
   */
  send?(line: OutputLine): Promise<void> | undefined;
  log: (line: string) => void;
  replayUserMessages?: boolean;
  /** `stdio`: ask the client through `can_use_tool` control requests. */
  permissionPromptTool?: string;
  /** Hold user messages until `initialize` was handled (`--await-initialize`). */
  awaitInitialize?: boolean;
  /** Aborting stops the session: the running prompt is interrupted, nothing more is written. */
  signal?: AbortSignal;
  /** Lines buffered before the session waits for `write` (default 256). */
  highWaterMark?: number;
  /** Called once the session exists (e.g. to log its id). */
  onSession?(session: Session): void;
}

/** Runs until the input ended and every queued prompt finished; returns the last result. */
export async function runStreamSession(o: StreamSessionOptions): Promise<ResultMessage | undefined> {
  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: o.highWaterMark ?? 256 });
  const send = o.send ? (line: OutputLine) => o.send!(line) : (line: OutputLine) => queue.push(line);
  const format = new StreamJsonFormat();
  const output = (async () => {
    if (o.write) for await (const line of queue) await o.write(format.line(line));
  })();
  let opened;
  try {
    opened = await openSession(o.options, {
      send,
      log: o.log,
      replayUserMessages: o.replayUserMessages,
      permissionPromptTool: o.permissionPromptTool,
      awaitInitialize: o.awaitInitialize,
      announceRequests: true,
    });
  } catch (error) {
    if (!SessionSetupError.isInstance(error)) {
      queue.done();
      await output;
      throw error;
    }
    // Options that cannot start a session: said on stderr, and a clean error result for the client.
    o.log(`agentpipe: error: ${error.message}`);
    const result = setupErrorResult(error.message, o.options.sessionId);
    await send(result);
    queue.done();
    await output;
    return result;
  }
  const { session, runner } = opened;
  o.onSession?.(session);
  const stop = () => {
    session.interrupt(o.signal?.reason);
    void queue.return();
  };
  if (o.signal?.aborted) stop();
  o.signal?.addEventListener('abort', stop, { once: true });
  try {
    await runner.run(o.input);
  } finally {
    o.signal?.removeEventListener('abort', stop);
    await session.close();
    queue.done();
    await output;
  }
  return runner.lastResult;
}
