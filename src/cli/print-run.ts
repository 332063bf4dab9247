/**
 * A print run (`agentpipe -p`, `--input-format stream-json`): flags → session → runner → output.
 * From its first line a stop signal ends it with the result it owes (run-stop.ts: interrupt, then
 * kill, then end now): a `-p` prompt always gets one, a stream-json prompt that started gets one,
 * and a run a signal stopped exits with 128 + the signal's number (issue 28, B4, B12).
 */
import { fstatSync } from 'node:fs';
import { promptMessage } from '../messages/user.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import type { ParsedLine } from '../messages/parse.ts';
import type { AgentMessage, ResultMessage } from '../messages/types.ts';
import { killAllGroups } from '../process/run.ts';
import { flushStdio } from '../process/stdio.ts';
import { whenAborted } from '../process/aborted.ts';
import { keepYoungGenerationSmall } from '../process/young-generation.ts';
import { createOutputFormat, type OutputLine } from '../pipeline/format/index.ts';
import { isProtocolLine } from '../pipeline/format/types.ts';
import type { ProgressView } from '../tui/progress.ts';
import { priceOf } from '../model/pricing.ts';
import { openSession, SessionSetupError, setupErrorResult, type OpenedSession } from '../session/open.ts';
import { DROPS_TURN_REFUSAL, NOT_FOUND } from '../session/resume.ts';
import type { SessionOptions } from '../session/options.ts';
import { maxLineFromEnv } from '../messages/ndjson.ts';
import { readInputMessages } from '../transport/ndjson.ts';
import type { CliFlags } from './flags.ts';
import { UsageError, sessionOptionsFromFlags, unsupportedFlagsGiven, validateFormats } from './options.ts';
import { reachedStage, releaseEarlySignals, takeEarlySignals, type StopSignal } from './early-signals.ts';
import { PrintOutput } from './print-output.ts';
import { toAsync } from './print-io.ts';
import { RunStop, type StopActions } from './run-stop.ts';

type Log = (line: string) => void;

/** Runs the print command; resolves with its exit code. */
export async function runPrint(promptArg: string | undefined, flags: CliFlags, log: Log): Promise<number> {
  keepYoungGenerationSmall();
  if (flags.sdkUrl !== undefined) {
    releaseEarlySignals(); // the --sdk-url run handles its signals itself
    return (await import('./sdk-url.ts')).runSdkUrl(flags, promptArg, log);
  }
  const stop = new RunStop(log);
  takeEarlySignals((signal) => stop.receive(signal));
  validateFormats(flags, promptArg !== undefined);
  for (const name of unsupportedFlagsGiven(flags)) {
    log(
      `agentpipe: warning: --${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is accepted but not ` +
        `supported yet; it has no effect`,
    );
  }
  let options: SessionOptions;
  try {
    options = await sessionOptionsFromFlags(flags);
  } catch (error) {
    // In json and stream-json a flag that cannot be used (an unreadable --settings, a bad --mcp-config) is the
    // prompt's one result too; in text mode its one line on stderr is all.
    if (!UsageError.isInstance(error) || flags.outputFormat === 'text') throw error;
    const out = new PrintOutput(createOutputFormat(flags.outputFormat, flags.verbose ?? false), () => undefined);
    return endUnstarted(
      out,
      error.message,
      log,
      givenSessionId(typeof flags.resume === 'string' ? flags.resume : flags.sessionId),
    );
  }
  reachedStage('options');
  // No prompt and no -p in a terminal: the interactive session (src/tui/, loaded only then), here or on a serve.
  const noPrompt = promptArg === undefined && flags.print !== true && flags.inputFormat !== 'stream-json';
  const interactive = noPrompt && options.replay === undefined && isTerminal(0) && isTerminal(1);
  if (flags.connect !== undefined && !interactive)
    throw new UsageError(
      '--connect starts the interactive session on a serve, in a terminal: leave out -p, the prompt and ' +
        '--input-format (a program connects with the library: query({ options: { connect: { url } } }))',
    );
  if (interactive) {
    releaseEarlySignals(); // the terminal's Ctrl-C is the session's (raw mode): a key, not a signal
    const { InteractiveSession } = await import('../tui/interactive.ts');
    const connect = flags.connect ? { url: flags.connect, token: process.env.AGENTPIPE_SERVE_TOKEN } : undefined;
    return new InteractiveSession(options, connect).run();
  }
  return new PrintRun(flags, options, stop, log, await progressView(flags)).run(promptArg);
}

/**
 * True when file descriptor `fd` is a terminal. A cheap fstat first: a run into a pipe or a file never builds
 * process.stdin or process.stdout (their streams load node:net and node:stream, print-run-loads.test.ts).
 */
function isTerminal(fd: 0 | 1 | 2): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false; // a terminal is a character device (so is /dev/null)
  } catch {
    return false;
  }
  return (fd === 0 ? process.stdin : fd === 1 ? process.stdout : process.stderr).isTTY === true;
}

/**
 * The live progress of a text run on stderr, for a person at a terminal: only when stdout and stderr are both
 * terminals (a run into a pipe or a file is unchanged and never loads src/tui/), and not with --quiet.
 */
async function progressView(flags: CliFlags): Promise<ProgressView | undefined> {
  if (flags.outputFormat !== 'text' || flags.quiet === true || !isTerminal(1) || !isTerminal(2)) return undefined;
  const { ProgressView } = await import('../tui/progress.ts');
  return new ProgressView(process.stderr);
}

/** The session id given by --resume or --session-id, when it is one (a result must name a session). */
function givenSessionId(id: string | undefined): string | undefined {
  return id !== undefined && UUID_PATTERN.test(id) ? id : undefined;
}

/**
 * A run that could not start (a flag, a settings file, a model, a wrapped CLI): its one line on stderr, then on `out`
 * the prompt's one result, `error_during_execution` as Claude Code ends a run that failed before its turn (none when
 * `sessionId` is `false`: a text run says its error on stderr only); exit code 1.
 */
async function endUnstarted(out: PrintOutput, message: string, log: Log, sessionId: string | false | undefined) {
  log(`agentpipe: error: ${message}`);
  // As Claude Code 2.1.332 numbers a start-up failure's result: the process's first, with no terminal_reason.
  const { terminal_reason: _none, ...result } = setupErrorResult(message, sessionId || undefined);
  out.seal(sessionId === false ? undefined : { ...result, result_index: 0 });
  await out.done;
  return 1;
}

/** The result a stopped run still owes its prompt. */
function stoppedResult(signal: StopSignal, when: string, sessionId?: string): ResultMessage {
  return setupErrorResult(`${signal} received ${when}`, sessionId, 'aborted_streaming');
}

class PrintRun {
  readonly #flags: CliFlags;
  readonly #options: SessionOptions;
  readonly #stop: RunStop;
  readonly #log: Log;
  readonly #out: PrintOutput;
  readonly #streamInput: boolean;
  readonly #progress: ProgressView | undefined;
  #opened?: OpenedSession;
  /** The session id given by --resume or --session-id, if any. */
  get #given(): string | undefined {
    return givenSessionId(this.#options.resume ?? this.#options.sessionId);
  }

  /** The reader of stdout went away (`failed`: stdout failed). */
  #closed?: { failed: boolean };

  constructor(flags: CliFlags, options: SessionOptions, stop: RunStop, log: Log, progress?: ProgressView) {
    this.#flags = flags;
    this.#progress = progress;
    this.#options = options;
    this.#stop = stop;
    this.#log = log;
    this.#streamInput = flags.inputFormat === 'stream-json';
    const format = createOutputFormat(flags.outputFormat, flags.verbose ?? false, {
      maxTurns: options.maxTurns,
      maxBudgetUsd: options.maxBudgetUsd,
    });
    this.#out = new PrintOutput(format, (error) => this.#readerGone(error));
    // While starting, a stop waits for the step under way (reading stdin stops at once), then ends the run.
    stop.attach(this.#actions('while starting', { interrupt: () => undefined }));
  }

  async run(promptArg: string | undefined): Promise<number> {
    const prompt = this.#streamInput ? undefined : await this.#readPrompt(promptArg);
    reachedStage('input');
    if (this.#stop.stopSignal) return this.#end('before the prompt started');
    // A replay without a prompt runs the tape's own prompts.
    if (!this.#streamInput && !prompt?.trim() && this.#options.replay === undefined) {
      const message =
        'Input must be provided either through stdin or as a prompt argument when using --print ' +
        '(e.g. agentpipe -p "What is in this folder?"; agentpipe --help lists the commands)';
      return endUnstarted(this.#out, message, this.#log, this.#flags.outputFormat === 'text' ? false : this.#given);
    }
    const opened = await this.#open();
    if (typeof opened === 'number') return opened;
    reachedStage('session');
    const { session, runner } = opened;
    if (this.#stop.stopSignal) {
      await session.close();
      return this.#end('before the prompt started');
    }
    this.#stop.attach(
      this.#actions('and the prompt did not end in time', {
        interrupt: (signal) => {
          runner.stop(`${signal} received`);
          session.interrupt();
        },
      }),
    );
    // A wrapped agent reports its own cost.
    const model = session.ctx.model;
    if (this.#flags.verbose && !session.harness && model !== 'scripted' && priceOf(model) === undefined)
      this.#log(`agentpipe: note: no price is known for model "${model}"; its cost is reported as 0`);
    const given = prompt?.trim() ? prompt : undefined;
    const prompts = opened.tape ? opened.tape.inputPrompts(given) : [promptMessage(prompt!)];
    const lines = prompts.map((message): ParsedLine => ({ ok: true, message }));
    await runner.run(this.#streamInput ? readInputMessages(process.stdin, maxLineFromEnv()) : toAsync(lines));
    await session.close();
    return this.#end('before the prompt ended');
  }

  /** The stop's actions at this stage: `interrupt` as given, `kill` the tools' groups, `exit` now with what is owed. */
  #actions(when: string, { interrupt }: Pick<StopActions, 'interrupt'>): StopActions {
    return { interrupt, kill: () => killAllGroups(), exit: (signal) => void this.#endNow(this.#owed(signal, when)) };
  }

  /** The result the run owes if it ends now: a `-p` prompt's until it has one; in stream-json, the running prompt's. */
  #owed(signal: StopSignal, when: string): ResultMessage | undefined {
    const session = this.#opened?.session;
    const owes = this.#streamInput ? this.#out.promptOpen || session?.running === true : this.#out.results === 0;
    if (!owes) return undefined;
    return stoppedResult(signal, when, session?.id ?? givenSessionId(this.#options.resume));
  }

  /** The prompt: the argument, else stdin to its end (or to a stop). */
  async #readPrompt(promptArg: string | undefined): Promise<string | undefined> {
    if (promptArg !== undefined || process.stdin.isTTY) return promptArg;
    const chunks: Buffer[] = [];
    const reading = (async () => {
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    })();
    await Promise.race([reading, whenAborted(this.#stop.signal)]);
    // Joined before decoding: a character split between two reads stays whole.
    return Buffer.concat(chunks).toString('utf8');
  }

  async #open(): Promise<OpenedSession | number> {
    const flags = this.#flags;
    try {
      this.#opened = await openSession(this.#options, {
        send: this.#progress ? this.#sendWithProgress : this.#out.send,
        log: this.#log,
        replayUserMessages: flags.replayUserMessages,
        permissionPromptTool: flags.permissionPromptTool,
        awaitInitialize: flags.awaitInitialize === true,
        // system/status 'requesting' before each request (with partial messages), as Claude Code 2.1.332 sends it.
        announceRequests: true,
      });
      return this.#opened;
    } catch (error) {
      if (!SessionSetupError.isInstance(error)) throw error;
      // A --resume-drops-turn refusal, or a --resume of an unknown session, is the prompt's one result, as Claude Code
      // sends it (an error_during_execution result; for the first, its error starts with DROPS_TURN_REFUSAL, sdk.d.ts,
      // which the SDK maps to its rewind recovery); in text mode too ("Execution error"). So is a required sandbox
      // that cannot start (Claude Code's sandbox_required_unavailable). In json and stream-json, so is every other
      // set-up error (an unknown model, a wrapped CLI not installed). Said on stderr too; exit 1.
      const refusal = [DROPS_TURN_REFUSAL, NOT_FOUND].some((start) => error.message.startsWith(start));
      const asResult = refusal || error.asResult || this.#flags.outputFormat !== 'text';
      return endUnstarted(this.#out, error.message, this.#log, asResult ? this.#given : false);
    }
  }

  /** Every line to the output; the stream's messages to the terminal's progress too. */
  readonly #sendWithProgress = (line: OutputLine): Promise<void> | undefined => {
    if (!isProtocolLine(line)) this.#progress?.onMessage(line as AgentMessage);
    return this.#out.send(line);
  };

  /** The output ends (with the result a stopped run owes); the exit code. */
  async #end(when: string): Promise<number> {
    const signal = this.#stop.stopSignal;
    const owed = signal ? this.#owed(signal, when) : undefined;
    this.#out.seal(owed);
    await this.#out.done;
    this.#progress?.finish();
    if (this.#closed) return this.#closed.failed ? 1 : 0;
    const result = owed ?? this.#opened?.runner.lastResult;
    const streamOut = this.#flags.outputFormat === 'stream-json';
    if (!result) {
      if (!streamOut && !signal) this.#log('agentpipe: error: No messages returned');
      return this.#stop.exitCode ?? (streamOut ? 0 : 1);
    }
    // A failed model request ends as Claude Code ends it: its text on stdout (the result), nothing on stderr.
    if (result.is_error && result.subtype !== 'success' && this.#flags.outputFormat === 'text')
      this.#log(`agentpipe: ${result.subtype}: ${result.errors.join('; ')}`);
    return this.#stop.exitCode ?? (result.is_error ? 1 : 0);
  }

  /** Ends the run now (a stop that did not end in time): what it owes, then the signal's exit code. */
  async #endNow(owed: ResultMessage | undefined): Promise<never> {
    killAllGroups();
    this.#out.seal(owed);
    // A reader that does not read cannot hold the exit.
    const { atMost } = await import('../process/retry.ts');
    await atMost(this.#out.done.then(flushStdio), 1000);
    process.exit(this.#stop.exitCode ?? 1);
  }

  /**
   * The reader went away (EPIPE: exit 0, as `| head` expects) or stdout failed (a full disk, a file over its size
   * limit: the output is cut, so exit 1). Nobody reads any more: running tools get a moment to stop, then the run
   * leaves.
   */
  #readerGone(error?: Error): void {
    if (error) this.#log(`agentpipe: stdout failed: ${error.message}`);
    this.#closed = { failed: error !== undefined };
    this.#out.abandon();
    this.#opened?.runner.stop('the reader of stdout went away');
    this.#opened?.session.interrupt();
    setTimeout(() => {
      killAllGroups();
      process.exit(error ? 1 : 0);
    }, 1000).unref();
  }
}
