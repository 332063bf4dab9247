/**
 * `agentpipe`: flags → session → runner → queue → output format → stdout.
 * Exit code 1 when the last result is an error or the flags are wrong; 0 otherwise
 * (also when the reader of stdout went away).
 */
import type { ParsedLine } from '../messages/parse.ts';
import type { PermissionResult } from '../messages/control.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { StreamWriter } from '../pipeline/writer.ts';
import { pipeOutput } from '../pipeline/output.ts';
import { createOutputFormat, type OutputLine } from '../pipeline/format/index.ts';
import { resolveModel, MissingCredentialsError, chooseProvider } from '../model/resolve.ts';
import { FailingProvider } from '../model/failing.ts';
import { ModelError } from '../model/errors.ts';
import { Session } from '../session/session.ts';
import { SessionRunner } from '../session/runner.ts';
import { newUuid } from '../messages/ids.ts';
import { maxLineFromEnv, readInputMessages } from '../transport/ndjson.ts';
import { buildProgram, type CliFlags } from './flags.ts';
import { addServeCommand } from './serve-command.ts';
import { addSessionsCommand } from './sessions-command.ts';
import { attachStart, prepareSession } from '../session/resume.ts';
import { compileSchema } from '../agent/structured-output.ts';
import { AuthWatchingProvider, resolveWithKeyHelper, type AuthStatus } from '../model/auth.ts';
import { UsageError, sessionOptionsFromFlags, unsupportedFlagsGiven, validateFormats } from './options.ts';

const log = (line: string) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);

export async function main(argv: string[] = process.argv): Promise<void> {
  if (argv[2] === 'acp') {
    // `agentpipe acp`: the Agent Client Protocol server on stdio (loaded only for it).
    const { runAcp } = await import('../acp/main.ts');
    return runAcp(argv.slice(3));
  }
  const program = buildProgram();
  program.action(async (prompt: string | undefined, flags: CliFlags) => {
    try {
      process.exitCode = await runPrint(prompt, flags);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      log(`agentpipe: error: ${error.message}`);
      process.exitCode = 1;
    }
  });
  addServeCommand(program, log);
  addSessionsCommand(program, log);
  await program.parseAsync(argv);
}

async function runPrint(promptArg: string | undefined, flags: CliFlags): Promise<number> {
  if (flags.sdkUrl !== undefined) return (await import('./sdk-url.ts')).runSdkUrl(flags, promptArg, log);
  validateFormats(flags, promptArg !== undefined);
  for (const name of unsupportedFlagsGiven(flags)) {
    log(`agentpipe: warning: --${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is accepted but not supported yet; it has no effect`);
  }
  const options = sessionOptionsFromFlags(flags);
  const streamInput = flags.inputFormat === 'stream-json';
  const prompt = streamInput ? undefined : promptArg ?? (process.stdin.isTTY ? undefined : await readAll(process.stdin));
  if (!streamInput && !prompt?.trim()) {
    throw new UsageError('Input must be provided either through stdin or as a prompt argument when using --print');
  }

  let start;
  try {
    start = await prepareSession(options, log);
    if (options.outputFormat) await compileSchema(options.outputFormat.schema);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const onAuthStatus = (status: AuthStatus) => send({ type: 'auth_status', ...status, uuid: newUuid(), session_id: start.sessionId });

  let authError: string | undefined;
  let resolved;
  try {
    resolved = options.apiKeyHelper
      ? await resolveWithKeyHelper(options, options.apiKeyHelper, options.cwd ?? process.cwd(), onAuthStatus)
      : await resolveModel(options);
    if (!options.apiKeyHelper && resolved.provider.provider !== 'scripted') resolved.provider = new AuthWatchingProvider(resolved.provider, onAuthStatus);
  } catch (error) {
    if (!(error instanceof MissingCredentialsError)) throw new UsageError((error as Error).message);
    authError = error.message;
    resolved = {
      provider: new FailingProvider(chooseProvider(options), new ModelError({ message: error.message, kind: 'authentication_failed' })),
      model: options.model ?? 'unknown',
    };
  }

  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 256 });
  const send = (line: OutputLine) => queue.push(line);
  const session = new Session({ ...options, sessionId: start.sessionId }, resolved.provider, resolved.model, send);
  attachStart(session, start);
  const runner = new SessionRunner(session, send, { replayUserMessages: flags.replayUserMessages, seenUuids: start.seenUuids, log });
  if (flags.permissionPromptTool === 'stdio') {
    session.ctx.canUseTool = async (toolName, input, { signal, toolUseId }) =>
      (await runner.request({ subtype: 'can_use_tool', tool_name: toolName, input, tool_use_id: toolUseId, permission_suggestions: [] }, signal)) as PermissionResult;
  }

  let readerGone = false;
  const writer = new StreamWriter(process.stdout, (error) => {
    if (error) log(`agentpipe: stdout failed: ${error.message}`);
    readerGone = true;
    session.interrupt();
    void queue.return();
    // Nobody reads any more: give running tools a moment to stop, then leave.
    setTimeout(() => process.exit(0), 1000).unref();
  });
  const stopOnSignal = (signal: NodeJS.Signals) => {
    log(`agentpipe: ${signal}: interrupting`);
    session.interrupt();
    setTimeout(() => process.exit(signal === 'SIGINT' ? 130 : 143), 3000).unref();
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  const format = createOutputFormat(flags.outputFormat, flags.verbose ?? false, { maxTurns: options.maxTurns, maxBudgetUsd: options.maxBudgetUsd });
  const output = pipeOutput(queue, format, writer);
  if (authError) {
    await send({ type: 'auth_status', isAuthenticating: false, output: [], error: authError, uuid: newUuid(), session_id: session.id });
  }
  const promptLine: ParsedLine = { ok: true, message: { type: 'user', message: { role: 'user', content: prompt! }, parent_tool_use_id: null, session_id: '' } };
  await runner.run(streamInput ? readInputMessages(process.stdin, maxLineFromEnv()) : toAsync([promptLine]));
  await session.close();
  queue.done();
  await output;
  if (readerGone) return 0;
  const result = runner.lastResult;
  if (!result) {
    if (flags.outputFormat !== 'stream-json') log('agentpipe: error: No messages returned');
    return flags.outputFormat === 'stream-json' ? 0 : 1;
  }
  if (result.is_error && flags.outputFormat === 'text') log(`agentpipe: ${result.subtype}: ${result.errors.join('; ')}`);
  return result.is_error ? 1 : 0;
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}
