/** Process entry: runs `main()`, stops what it left running, and exits once stdout and stderr are flushed. */
import { flushStdio, watchStdio } from '../process/stdio.ts';
import { killAllGroups } from '../process/run.ts';
import { main } from './main.ts';

/** Resolves when everything written to `stream` has reached the OS (or the stream failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => resolve();
    stream.once('drain', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}

async function exit(code?: number): Promise<never> {
  killAllGroups();
  // Only the streams this run made (making one here would only find it empty), and stdout's FdWriter.
  await flushStdio(flushed);
  process.exit(code ?? process.exitCode);
}

watchStdio();
main().then(
  () => exit(),
  (error: unknown) => {
    process.stderr.write(`agentpipe: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    return exit(1);
  },
);
