/**
 * The in-process engine of `query()`: the session opened as every entry point opens it
 * (session/open.ts: resume, transcript, credentials, schema), fed with the prompt's user
 * messages; control requests go through the same handlers (session/control.ts) as the CLI's
 * stream-json control protocol.
 */
import type { ParsedLine } from '../messages/parse.ts';
import type { AgentMessage } from '../messages/types.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { isProtocolLine, type OutputLine } from '../pipeline/format/types.ts';
import { openSession } from '../session/open.ts';
import { handleControlRequest } from '../session/control.ts';
import { promptMessages } from './prompt-input.ts';
import type { Engine, PromptMessage, QueryOptions } from './types.ts';

/** Starts the session (throws SessionSetupError for options that cannot start one). */
export async function startInProcess(
  prompt: string | AsyncIterable<PromptMessage>,
  options: QueryOptions,
): Promise<Engine> {
  const log = options.stderr ?? (() => {});
  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 256 });
  const send = (line: OutputLine) => queue.push(line);
  const { session, runner } = await openSession(options, {
    send,
    log,
    announceRequests: true,
    replayUserMessages: options.replayUserMessages,
  });

  let stopInput!: () => void;
  const inputStopped = new Promise<void>((resolve) => (stopInput = resolve));
  async function* input(): AsyncGenerator<ParsedLine> {
    const source = promptMessages(prompt);
    const stopped = inputStopped.then(() => ({ done: true as const, value: undefined }));
    try {
      for (;;) {
        const next = await Promise.race([source.next(), stopped]);
        if (next.done) return;
        yield { ok: true, message: next.value };
      }
    } finally {
      void source.return(undefined);
    }
  }

  void runner.run(input()).then(
    async () => {
      await session.close();
      queue.done();
    },
    async (error: unknown) => {
      // The run's own failure is what the query reports.
      await session.close().catch(() => {});
      queue.error(error);
    },
  );

  async function* messages(): AsyncGenerator<AgentMessage> {
    for await (const line of queue) if (!isProtocolLine(line)) yield line as AgentMessage;
  }
  return {
    messages: messages(),
    control: (request) => handleControlRequest(runner, request),
    endInput: stopInput,
    close() {
      stopInput();
      session.interrupt();
      void queue.return();
    },
  };
}
