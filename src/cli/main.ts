/**
 * `agentpipe`: flags → session → runner → queue → output format → stdout.
 * Exit code 1 when the last result is an error or the flags are wrong; 0 otherwise
 * (also when the reader of stdout went away).
 */
import { promptMessage } from '../messages/user.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import { killAllGroups } from '../process/run.ts';
import { keepYoungGenerationSmall } from '../process/young-generation.ts';
import type { ParsedLine } from '../messages/parse.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { stdoutWriter } from '../pipeline/fd-writer.ts';
import { pipeOutput } from '../pipeline/output.ts';
import { createOutputFormat, type OutputLine } from '../pipeline/format/index.ts';
import { priceOf } from '../model/pricing.ts';
import { openSession, SessionSetupError, setupErrorResult } from '../session/open.ts';
import { DROPS_TURN_REFUSAL } from '../session/resume.ts';
import type { SessionOptions } from '../session/options.ts';
import { maxLineFromEnv, readInputMessages } from '../transport/ndjson.ts';
import { buildProgram, type CliFlags } from './flags.ts';
import { addServeCommand } from './serve-command.ts';
import { addSessionsCommand } from './sessions-command.ts';
import { addViewCommand } from './view-command.ts';
import { addWorkerCommand } from './worker-command.ts';
import { addAttachCommand } from './attach-command.ts';
import { addTrustCommand } from './trust-command.ts';
import { UsageError, sessionOptionsFromFlags, unsupportedFlagsGiven, validateFormats } from './options.ts';

const log = (line: string) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);

export async function main(argv: string[] = process.argv): Promise<void> {
  if (argv[2] === 'acp') {
    // `agentpipe acp`: the Agent Client Protocol server on stdio (loaded only for it).
    const { runAcpCommand } = await import('./acp-command.ts');
    return runAcpCommand(argv.slice(3), log);
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
  addViewCommand(program, log);
  addWorkerCommand(program, log);
  addAttachCommand(program, log);
  addTrustCommand(program, log);
  await program.parseAsync(argv);
}

/**
 * A `--resume-drops-turn` refusal is the prompt's one result, as Claude Code sends it (an
 * `error_during_execution` result whose error starts with DROPS_TURN_REFUSAL, sdk.d.ts): the SDK
 * then maps it to its rewind recovery. Said on stderr too; exit 1.
 */
async function refuseResume(message: string, flags: CliFlags, options: SessionOptions): Promise<number> {
  log(`agentpipe: error: ${message}`);
  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 4 });
  const format = createOutputFormat(flags.outputFormat, flags.verbose ?? false, {});
  const output = pipeOutput(queue, format, stdoutWriter());
  const resumed = options.resume !== undefined && UUID_PATTERN.test(options.resume) ? options.resume : undefined;
  await queue.push(setupErrorResult(message, resumed));
  queue.done();
  await output;
  return 1;
}

/** Exit codes after a signal, as a shell reports them (128 + the signal's number). */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

async function runPrint(promptArg: string | undefined, flags: CliFlags): Promise<number> {
  keepYoungGenerationSmall();
  if (flags.sdkUrl !== undefined) return (await import('./sdk-url.ts')).runSdkUrl(flags, promptArg, log);
  validateFormats(flags, promptArg !== undefined);
  for (const name of unsupportedFlagsGiven(flags)) {
    log(
      `agentpipe: warning: --${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is accepted but not ` +
        `supported yet; it has no effect`,
    );
  }
  const options = await sessionOptionsFromFlags(flags);
  const streamInput = flags.inputFormat === 'stream-json';
  const prompt = streamInput
    ? undefined
    : (promptArg ?? (process.stdin.isTTY ? undefined : await readAll(process.stdin)));
  if (!streamInput && !prompt?.trim()) {
    throw new UsageError(
      'Input must be provided either through stdin or as a prompt argument when using --print ' +
        '(e.g. agentpipe -p "What is in this folder?"; agentpipe --help lists the commands)',
    );
  }

  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 256 });
  const send = (line: OutputLine) => queue.push(line);
  let opened;
  try {
    opened = await openSession(options, {
      send,
      log,
      replayUserMessages: flags.replayUserMessages,
      permissionPromptTool: flags.permissionPromptTool,
      awaitInitialize: flags.awaitInitialize === true,
      announceRequests: flags.inputFormat === 'stream-json',
    });
  } catch (error) {
    if (error instanceof SessionSetupError && error.message.startsWith(DROPS_TURN_REFUSAL)) {
      return refuseResume(error.message, flags, options);
    }
    if (error instanceof SessionSetupError) throw new UsageError(error.message);
    throw error;
  }
  const { session, runner } = opened;
  // A wrapped agent reports its own cost.
  if (
    flags.verbose &&
    !session.harness &&
    session.ctx.model !== 'scripted' &&
    priceOf(session.ctx.model) === undefined
  ) {
    log(`agentpipe: note: no price is known for model "${session.ctx.model}"; its cost is reported as 0`);
  }

  // The reader went away (EPIPE: exit 0, as `| head` expects) or stdout failed (a full disk, a file
  // over its size limit: the output is cut, so exit 1).
  let readerGone = false;
  let outputFailed = false;
  const writer = stdoutWriter((error) => {
    if (error) log(`agentpipe: stdout failed: ${error.message}`);
    readerGone = true;
    outputFailed = error !== undefined;
    session.interrupt();
    void queue.return();
    // Nobody reads any more: give running tools a moment to stop, then leave.
    setTimeout(() => {
      killAllGroups();
      process.exit(outputFailed ? 1 : 0);
    }, 1000).unref();
  });
  // SIGHUP (a closed terminal, an SSH drop) ends the run like SIGINT and SIGTERM: the prompt
  // gets its result, running tools are stopped; if that takes too long, their groups are killed.
  const stopOnSignal = (signal: NodeJS.Signals) => {
    log(`agentpipe: ${signal}: interrupting`);
    runner.stop(`${signal} received`);
    session.interrupt();
    setTimeout(() => {
      killAllGroups();
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }, 3000).unref();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stopOnSignal);

  const format = createOutputFormat(flags.outputFormat, flags.verbose ?? false, {
    maxTurns: options.maxTurns,
    maxBudgetUsd: options.maxBudgetUsd,
  });
  const output = pipeOutput(queue, format, writer);
  const promptLine: ParsedLine = { ok: true, message: promptMessage(prompt!) };
  await runner.run(streamInput ? readInputMessages(process.stdin, maxLineFromEnv()) : toAsync([promptLine]));
  await session.close();
  queue.done();
  await output;
  if (readerGone) return outputFailed ? 1 : 0;
  const result = runner.lastResult;
  if (!result) {
    if (flags.outputFormat !== 'stream-json') log('agentpipe: error: No messages returned');
    return flags.outputFormat === 'stream-json' ? 0 : 1;
  }
  // A failed model request ends as Claude Code ends it: its text on stdout (the result), nothing on stderr.
  if (result.is_error && result.subtype !== 'success' && flags.outputFormat === 'text')
    log(`agentpipe: ${result.subtype}: ${result.errors.join('; ')}`);
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
