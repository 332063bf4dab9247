/**
 * `agentpipe`: flags → session → runner → queue → output format → stdout.
 * Exit code 1 when the last result is an error or the flags are wrong; 0 otherwise
 * (also when the reader of stdout went away).
 */
import { promptMessage } from '../messages/user.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import { keepYoungGenerationSmall } from '../process/young-generation.ts';
import type { ParsedLine } from '../messages/parse.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { stdoutWriter } from '../pipeline/fd-writer.ts';
import { interruptOnSignals, readAll, runStdout, toAsync } from './print-io.ts';
import { pipeOutput } from '../pipeline/output.ts';
import { createOutputFormat, type OutputLine } from '../pipeline/format/index.ts';
import { priceOf } from '../model/pricing.ts';
import { openSession, SessionSetupError, setupErrorResult } from '../session/open.ts';
import { DROPS_TURN_REFUSAL, NOT_FOUND } from '../session/resume.ts';
import type { SessionOptions } from '../session/options.ts';
import { maxLineFromEnv } from '../messages/ndjson.ts';
import { readInputMessages } from '../transport/ndjson.ts';
import { buildProgram, type CliFlags } from './flags.ts';
import { addServeCommand } from './serve-command.ts';
import { addSessionsCommand } from './sessions-command.ts';
import { addSandboxCommand } from './sandbox-command.ts';
import { addViewCommand } from './view-command.ts';
import { addWorkerCommand } from './worker-command.ts';
import { addAttachCommand } from './attach-command.ts';
import { addTapeCommands } from './replay-command.ts';
import { UsageError, sessionOptionsFromFlags, unsupportedFlagsGiven, validateFormats } from './options.ts';

const log = (line: string) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);

export async function main(argv: string[] = process.argv): Promise<void> {
  if (argv[2] === 'acp') {
    // `agentpipe acp`: the Agent Client Protocol server on stdio (loaded only for it).
    const { runAcpCommand } = await import('./acp-command.ts');
    return runAcpCommand(argv.slice(3), log);
  }
  if (argv[2] === 'app-server') {
    // `agentpipe app-server`: Codex's app-server protocol (loaded only for it).
    const { runAppServerCommand } = await import('./app-server-command.ts');
    return runAppServerCommand(argv.slice(3), log);
  }
  if (argv[2] === 'exec') {
    // `agentpipe exec`: Codex's `codex exec` command line and JSON lines (loaded only for it).
    const { runExecCommand } = await import('./exec-command.ts');
    process.exitCode = await runExecCommand(argv.slice(3), log);
    return;
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
  addSandboxCommand(program, log);
  addViewCommand(program, log);
  addWorkerCommand(program, log);
  addAttachCommand(program, log);
  addTapeCommands(program, log);
  await program.parseAsync(argv);
}

/**
 * A `--resume-drops-turn` refusal, or a `--resume` of an unknown session, is the prompt's one result, as Claude Code
 * sends it (an `error_during_execution` result; for the first, its error starts with DROPS_TURN_REFUSAL, sdk.d.ts,
 * which the SDK maps to its rewind recovery). So is a required sandbox that cannot start (Claude Code's
 * `sandbox_required_unavailable`). Said on stderr too; exit 1.
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
  // A replay without a prompt runs the tape's own prompts.
  if (!streamInput && !prompt?.trim() && options.replay === undefined) {
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
      // system/status 'requesting' before each request (with partial messages), as Claude Code 2.1.332 sends it.
      announceRequests: true,
    });
  } catch (error) {
    const refusal = [DROPS_TURN_REFUSAL, NOT_FOUND].some(
      (start) => error instanceof Error && error.message.startsWith(start),
    );
    if (error instanceof SessionSetupError && (error.asResult || refusal)) {
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

  const { writer, gone } = runStdout(session, queue, log);
  interruptOnSignals(runner, session, log);

  const format = createOutputFormat(flags.outputFormat, flags.verbose ?? false, {
    maxTurns: options.maxTurns,
    maxBudgetUsd: options.maxBudgetUsd,
  });
  const output = pipeOutput(queue, format, writer);
  const given = prompt?.trim() ? prompt : undefined;
  const prompts = opened.tape ? opened.tape.inputPrompts(given) : [promptMessage(prompt!)];
  const lines = prompts.map((message): ParsedLine => ({ ok: true, message }));
  await runner.run(streamInput ? readInputMessages(process.stdin, maxLineFromEnv()) : toAsync(lines));
  await session.close();
  queue.done();
  await output;
  const { readerGone, failed } = gone();
  if (readerGone) return failed ? 1 : 0;
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
