/**
 * A backpressured text writer over a Node Writable (stdout, a socket, a file).
 * `write()` resolves when the stream can take more; `end()` flushes. A closed reader
 * (EPIPE) marks the writer closed: later writes are dropped quietly and `onClose` fires once.
 * Writes within one tick are corked and leave as one system call (a producer that makes one line
 * per tick, as a provider stream does, no longer pays a write per line).
 */
import type { Writable } from 'node:stream';

/** What the output stage writes to: text in, backpressure out (StreamWriter, FdWriter). */
export interface TextWriter {
  /** True once the reader went away. */
  readonly closed: boolean;
  /** Writes `text`; resolves when the writer can take more. */
  write(text: string): Promise<void>;
  /** Resolves once everything written so far reached the OS (or the reader is gone). */
  flush(): Promise<void>;
}

export class StreamWriter implements TextWriter {
  readonly #stream: Writable;
  #closed = false;
  #corked = false;
  #onClose?: (err?: Error) => void;

  constructor(stream: Writable, onClose?: (err?: Error) => void) {
    this.#stream = stream;
    this.#onClose = onClose;
    stream.on('error', (err: NodeJS.ErrnoException) => this.#close(err.code === 'EPIPE' ? undefined : err));
    stream.on('close', () => this.#close());
  }

  /** True once the reader went away. */
  get closed(): boolean {
    return this.#closed || this.#stream.destroyed;
  }

  /** Writes `text`; waits for 'drain' when the stream's buffer is full. */
  write(text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!this.#corked) {
      this.#corked = true;
      this.#stream.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.#stream.uncork();
      });
    }
    if (this.#stream.write(text)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#stream.off('drain', done);
        this.#stream.off('close', done);
        this.#stream.off('error', done);
        resolve();
      };
      this.#stream.on('drain', done);
      this.#stream.on('close', done);
      this.#stream.on('error', done);
    });
  }

  /** Resolves once everything written so far reached the OS (or the reader is gone). */
  flush(): Promise<void> {
    if (this.closed || this.#stream.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => this.#stream.write('', () => resolve()));
  }

  #close(err?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose?.(err);
  }
}
