/**
 * What every one-shot run of the CLI (`agentpipe -p`, `agentpipe exec`) does around its session:
 * stdout as a backpressured writer whose reader may go away, signals that interrupt the prompt
 * (its result is still written), and stdin read whole.
 */
import { killAllGroups } from '../process/run.ts';
import { stdoutWriter } from '../pipeline/fd-writer.ts';
import type { AsyncMessageQueue } from '../pipeline/queue.ts';
import type { TextWriter } from '../pipeline/writer.ts';
import type { OutputLine } from '../pipeline/format/types.ts';
import type { Session } from '../session/session.ts';
import type { SessionRunner } from '../session/runner.ts';

/** Exit codes after a signal, as a shell reports them (128 + the signal's number). */
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** stdout for a run: `gone()` tells whether its reader went away, and whether with an error. */
export function runStdout(
  session: Session,
  queue: AsyncMessageQueue<OutputLine>,
  log: (line: string) => void,
): { writer: TextWriter; gone: () => { readerGone: boolean; failed: boolean } } {
  // The reader went away (EPIPE: exit 0, as `| head` expects) or stdout failed (a full disk, a file
  // over its size limit: the output is cut, so exit 1).
  let readerGone = false;
  let failed = false;
  const writer = stdoutWriter((error) => {
    if (error) log(`agentpipe: stdout failed: ${error.message}`);
    readerGone = true;
    failed = error !== undefined;
    session.interrupt();
    void queue.return();
    // Nobody reads any more: give running tools a moment to stop, then leave.
    setTimeout(() => {
      killAllGroups();
      process.exit(failed ? 1 : 0);
    }, 1000).unref();
  });
  return { writer, gone: () => ({ readerGone, failed }) };
}

/**
 * SIGHUP (a closed terminal, an SSH drop) ends the run like SIGINT and SIGTERM: the prompt gets its
 * result, running tools are stopped; if that takes too long, their groups are killed.
 */
export function interruptOnSignals(runner: SessionRunner, session: Session, log: (line: string) => void): void {
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
}

/** All of a stream, as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

export async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
