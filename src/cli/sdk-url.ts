/**
 * `agentpipe --sdk-url ws://...`: the stream-json session of the CLI, over a WebSocket the CLI
 * dials instead of stdio. Input and output are stream-json whatever the format flags say.
 * `AGENTPIPE_SDK_URL_TOKEN`, when set, is sent as `Authorization: Bearer <token>`.
 */
import { errorMessage } from '../process/errors.ts';
import { runStreamSession } from '../session/serve-session.ts';
import { maxLineFromEnv } from '../messages/ndjson.ts';
import type { CliFlags } from './flags.ts';
import { UsageError, sessionOptionsFromFlags, unsupportedFlagsGiven } from './options.ts';

export async function runSdkUrl(
  flags: CliFlags,
  promptArg: string | undefined,
  log: (line: string) => void,
): Promise<number> {
  const url = String(flags.sdkUrl);
  if (!/^wss?:\/\/[^/]/.test(url)) throw new UsageError(`--sdk-url must be a ws:// or wss:// URL, got ${url}`);
  if (promptArg !== undefined)
    throw new UsageError('a prompt argument cannot be combined with --sdk-url; the client sends the prompts');
  for (const name of unsupportedFlagsGiven(flags)) {
    log(
      `agentpipe: warning: --${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is accepted but not ` +
        `supported yet; it has no effect`,
    );
  }
  const options = await sessionOptionsFromFlags(flags);
  const { SdkUrlTransport } = await import('../transport/websocket-client.ts');
  const token = process.env.AGENTPIPE_SDK_URL_TOKEN;
  let transport;
  try {
    transport = await SdkUrlTransport.connect({
      url,
      log,
      maxPayload: maxLineFromEnv(),
      headers: token ? { authorization: `Bearer ${token}` } : undefined,
    });
  } catch (error) {
    log(`agentpipe: error: ${errorMessage(error)}`);
    return 1;
  }
  const interrupted = new AbortController();
  const onSignal = () => interrupted.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const result = await runStreamSession({
    options,
    input: transport.input,
    write: (text) => transport.write(text),
    log,
    replayUserMessages: flags.replayUserMessages,
    permissionPromptTool: flags.permissionPromptTool,
    awaitInitialize: flags.awaitInitialize === true,
    signal: AbortSignal.any([transport.signal, interrupted.signal]),
  });
  await transport.close();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (transport.failure) return 1;
  return result?.is_error ? 1 : 0;
}
