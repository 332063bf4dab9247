/**
 * One stream-json session over any line transport: input messages in, NDJSON lines out.
 * The wiring the CLI does for stdio (model → Session → SessionRunner → bounded queue →
 * stream-json), reusable by the WebSocket transports (`--sdk-url`, `agentpipe serve`).
 * `write` is awaited for every line, so a slow transport pauses this session only.
 */
import type { ParsedLine } from '../messages/parse.ts';
import type { PermissionResult } from '../messages/control.ts';
import type { ResultMessage } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { StreamJsonFormat } from '../pipeline/format/stream-json.ts';
import type { OutputLine } from '../pipeline/format/types.ts';
import { chooseProvider, MissingCredentialsError, resolveModel, type ResolvedModel } from '../model/resolve.ts';
import { FailingProvider } from '../model/failing.ts';
import { ModelError } from '../model/errors.ts';
import type { SessionOptions } from './options.ts';
import { Session } from './session.ts';
import { SessionRunner } from './runner.ts';

export interface StreamSessionOptions {
  options: SessionOptions;
  input: AsyncIterable<ParsedLine>;
  /** Writes one NDJSON line (with its `\n`); resolves when the transport can take more. */
  write(text: string): Promise<void>;
  log(line: string): void;
  replayUserMessages?: boolean;
  /** `stdio`: ask the client through `can_use_tool` control requests. */
  permissionPromptTool?: string;
  /** Aborting stops the session: the running prompt is interrupted, nothing more is written. */
  signal?: AbortSignal;
  /** Lines buffered before the session waits for `write` (default 256). */
  highWaterMark?: number;
  /** Called once the session exists (e.g. to log its id). */
  onSession?(session: Session): void;
}

/** The model of the options, or a provider that fails every request with the credentials error. */
export async function resolveSessionModel(options: SessionOptions): Promise<ResolvedModel & { authError?: string }> {
  try {
    return await resolveModel(options);
  } catch (error) {
    if (!(error instanceof MissingCredentialsError)) throw error;
    const failure = new ModelError({ message: error.message, kind: 'authentication_failed' });
    return { provider: new FailingProvider(chooseProvider(options), failure), model: options.model ?? 'unknown', authError: error.message };
  }
}

/** Runs until the input ended and every queued prompt finished; returns the last result. */
export async function runStreamSession(o: StreamSessionOptions): Promise<ResultMessage | undefined> {
  const { provider, model, authError } = await resolveSessionModel(o.options);
  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: o.highWaterMark ?? 256 });
  const send = (line: OutputLine) => queue.push(line);
  const session = new Session(o.options, provider, model, send);
  const runner = new SessionRunner(session, send, { replayUserMessages: o.replayUserMessages, log: o.log });
  if (o.permissionPromptTool === 'stdio') {
    session.ctx.canUseTool = async (toolName, input, { signal, toolUseId }) =>
      (await runner.request({ subtype: 'can_use_tool', tool_name: toolName, input, tool_use_id: toolUseId, permission_suggestions: [] }, signal)) as PermissionResult;
  }
  o.onSession?.(session);
  const stop = () => {
    session.interrupt();
    void queue.return();
  };
  if (o.signal?.aborted) stop();
  o.signal?.addEventListener('abort', stop, { once: true });

  const format = new StreamJsonFormat();
  const output = (async () => {
    for await (const line of queue) await o.write(format.line(line));
  })();
  try {
    if (authError) await send({ type: 'auth_status', isAuthenticating: false, output: [], error: authError, uuid: newUuid(), session_id: session.id });
    await runner.run(o.input);
  } finally {
    o.signal?.removeEventListener('abort', stop);
    await session.close?.();
    queue.done();
    await output;
  }
  return runner.lastResult;
}
