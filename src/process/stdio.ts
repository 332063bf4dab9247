/**
 * Which of `process.stdout` and `process.stderr` this process has made. Node builds each on first
 * use, and building one loads its stream modules (~3 ms); the CLI writes stdout through a file
 * descriptor (pipeline/fd-writer.ts) and stderr only when it has something to say, so a run that
 * flushes "stdout and stderr" at exit must not build them just to find them empty.
 */
const made = new Set<NodeJS.WriteStream>();
let watching = false;

/** Starts recording which stdio streams are made (call once, before anything writes). */
export function watchStdio(): void {
  if (watching) return;
  watching = true;
  for (const name of ['stdout', 'stderr'] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(process, name);
    if (!descriptor?.get || !descriptor.configurable) {
      made.add(process[name]);
      continue;
    }
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: descriptor.enumerable,
      // First use: Node's own getter back in place, which makes the stream; note it.
      get() {
        Object.defineProperty(process, name, descriptor);
        const stream = process[name];
        made.add(stream);
        return stream;
      },
    });
  }
}

/** The stdio streams made so far (all of them when not watching). */
function madeStdio(): NodeJS.WriteStream[] {
  return watching ? [...made] : [process.stdout, process.stderr];
}

const writers = new Set<{ flush(): Promise<void> }>();

/** A writer of fd 1 or 2 outside `process.stdout`/`stderr` (pipeline/fd-writer.ts): flushed at exit too. */
export function registerStdioWriter(writer: { flush(): Promise<void> }): void {
  writers.add(writer);
}

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

/**
 * Resolves once every stdio stream this run made (making one here would only find it empty) and
 * every registered writer has flushed.
 */
export function flushStdio(): Promise<unknown> {
  return Promise.all([...madeStdio().map(flushed), ...[...writers].map((writer) => writer.flush())]);
}
