/**
 * `agentpipe replay <tape>`: the tape's session run again offline, with its own prompts and options, in a scratch copy
 * of the folder it started in (or `--in <dir>`). Without `--verify` the stream is printed in `--output-format`; with
 * it, the stream (as a client compares it: no ids, times or costs) and the files the replay left (unless
 * `--replay-tools tape`: then nothing ran) are compared with the recorded ones, and one line says `same` or the first
 * difference. Exit 0 when they are the same (without `--verify`:
 * when the last result is not an error), 1 otherwise.
 */
import { errorMessage } from '../process/errors.ts';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ParsedLine } from '../messages/parse.ts';
import type { AgentMessage } from '../messages/types.ts';
import { isPromptEcho } from '../messages/user.ts';
import { readTape } from '../model/tape/reader.ts';
import { sceneNow } from '../model/tape/scene.ts';
import type { Tape } from '../model/tape/format.ts';
import { stdoutWriter } from '../pipeline/fd-writer.ts';
import { createOutputFormat, isProtocolLine, type OutputLine } from '../pipeline/format/index.ts';
import { pipeOutput } from '../pipeline/output.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { openSession } from '../session/open.ts';
import { optionsFromTape } from '../session/tape-options.ts';
import { streamDifference } from '../session/tape-verify.ts';
import { filesDifference, restoreFiles, snapshotFiles } from '../tools/tape-files.ts';
import { UsageError } from './options.ts';
import type { ReplayFlags } from './replay-command.ts';

export async function runReplay(file: string, flags: ReplayFlags, log: (line: string) => void): Promise<number> {
  const tapeFile = path.resolve(file);
  const scratch = flags.in === undefined;
  const cwd = scratch ? mkdtempSync(path.join(os.tmpdir(), 'agentpipe-replay-')) : path.resolve(flags.in!);
  if (!scratch && (!existsSync(cwd) || !statSync(cwd).isDirectory()))
    throw new UsageError(`--in ${flags.in}: no such folder`);
  try {
    const tape = read(tapeFile, cwd);
    const start = tape.lines.find((l) => l.type === 'files' && l.at === 'start');
    if (scratch) {
      if (start?.type !== 'files') throw new UsageError(`${file}: the tape holds no starting files to replay in`);
      restoreFiles(cwd, start.files);
      if (start.skipped?.length)
        log(
          `agentpipe: warning: the recording left out ${start.skipped.length} large file(s): ` +
            start.skipped.join(', '),
        );
    }
    const messages = await replaySession(tape, tapeFile, cwd, flags, log);
    if (!flags.verify) {
      const last = messages.at(-1);
      return last?.type === 'result' && !last.is_error ? 0 : 1;
    }
    // With --replay-tools tape nothing ran: the files are as the scratch copy began, not worth comparing.
    const verdict = compare(tape, cwd, messages, tapeFile, flags.replayTools !== 'tape');
    process.stdout.write(verdict === undefined ? 'same\n' : `different: ${verdict}\n`);
    return verdict === undefined ? 0 : 1;
  } finally {
    if (scratch && !flags.keep) rmSync(cwd, { recursive: true, force: true });
    else if (scratch) log(`agentpipe: the replay's folder: ${cwd}`);
  }
}

function read(file: string, cwd: string): Tape {
  try {
    return readTape(file, { cwd, places: sceneNow(cwd).places });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** Runs the tape's session in `cwd`; the messages it emitted (printed unless verifying). */
async function replaySession(
  tape: Tape,
  tapeFile: string,
  cwd: string,
  flags: ReplayFlags,
  log: (line: string) => void,
): Promise<AgentMessage[]> {
  const options = optionsFromTape(tape.header, cwd, {
    replay: tapeFile,
    ...(flags.replayTools ? { replayTools: flags.replayTools } : {}),
    persistSession: false,
  });
  const messages: AgentMessage[] = [];
  const queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 256 });
  const format = createOutputFormat(flags.outputFormat, flags.verbose ?? false, {});
  const output = flags.verify ? drain(queue) : pipeOutput(queue, format, stdoutWriter());
  let opened;
  try {
    opened = await openSession(options, {
      send: (line) => {
        if (isProtocolLine(line)) return queue.push(line);
        const message = line as AgentMessage;
        messages.push(message);
        // The recorded stream holds the prompts' echoes (compared); the printed one as the main command prints it.
        return isPromptEcho(message) && !flags.replayUserMessages ? undefined : queue.push(line);
      },
      log,
      replayUserMessages: true,
    });
  } catch (error) {
    queue.done();
    await output;
    throw new UsageError(errorMessage(error));
  }
  const prompts = opened.tape!.inputPrompts(undefined).map((message): ParsedLine => ({ ok: true, message }));
  await opened.runner.run(
    (async function* () {
      yield* prompts;
    })(),
  );
  await opened.session.close();
  queue.done();
  await output;
  return messages;
}

async function drain(queue: AsyncMessageQueue<OutputLine>): Promise<void> {
  for await (const _ of queue);
}

/** The first difference between the recording and the replay: the stream, then the files. */
function compare(
  tape: Tape,
  cwd: string,
  messages: AgentMessage[],
  tapeFile: string,
  files: boolean,
): string | undefined {
  const recorded = tape.lines.flatMap((l) => (l.type === 'message' ? [l.message] : []));
  const stream = streamDifference(recorded, cwd, messages, cwd);
  if (stream || !files) return stream;
  // The last one: a tape that went on with a resume holds one per run.
  const end = tape.lines.findLast((l) => l.type === 'files' && l.at === 'end');
  if (end?.type !== 'files') return undefined;
  const difference = filesDifference(end.files, snapshotFiles(cwd, [tapeFile]).files);
  return difference && `files: ${difference}`;
}
