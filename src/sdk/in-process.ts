/**
 * The in-process engine of `query()`: the same Session, SessionRunner and queue the CLI wires
 * (cli/main.ts), fed with the prompt's user messages; control requests go through the same
 * handlers (session/control.ts) as the CLI's stream-json control protocol.
 */
import type { ParsedLine } from '../messages/parse.ts';
import type { AgentMessage } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { isProtocolLine, type OutputLine } from '../pipeline/format/types.ts';
import { chooseProvider, MissingCredentialsError, resolveModel } from '../model/resolve.ts';
import { FailingProvider } from '../model/failing.ts';
import { ModelError } from '../model/errors.ts';
import { Session } from '../session/session.ts';
import { SessionRunner } from '../session/runner.ts';
import { handleControlRequest } from '../session/control.ts';
import { promptMessages } from './prompt-input.ts';
import type { Engine, PromptMessage, QueryOptions } from './types.ts';

export async function startInProcess(prompt: string | AsyncIterable<PromptMessage>, options: QueryOptions): Promise<Engine> {
  const log = options.stderr ?? (() => {});
  let authError: string | undefined;
  let resolved;
  try {
    resolved = await resolveModel(options);
  } catch (error) {
    if (!(error instanceof MissingCredentialsError)) throw error;
    authError = error.message;
    resolved = {
      provider: new FailingProvider(chooseProvider(options), new ModelError({ message: error.message, kind: 'authentication_failed' })),
      model: options.model ?? 'unknown',
    };
  }
  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 256 });
  const send = (line: OutputLine) => queue.push(line);
  const session = new Session(options, resolved.provider, resolved.model, send);
  const runner = new SessionRunner(session, send, { log });

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

  if (authError) await send({ type: 'auth_status', isAuthenticating: false, output: [], error: authError, uuid: newUuid(), session_id: session.id });
  void runner.run(input()).then(
    async () => {
      await session.close();
      queue.done();
    },
    async (error: unknown) => {
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
