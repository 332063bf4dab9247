/**
 * An append-only JSONL file written by one serial writer: lines are written in the order they
 * were appended, one write at a time, and `append()` only makes the caller wait when more
 * than `highWaterMark` bytes are pending (memory stays bounded when the disk is slow).
 * `sync()` fsyncs what was written so far (called at turn boundaries). A write error is
 * reported once and disables the writer: the session goes on without a transcript.
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export class TranscriptWriter {
  readonly file: string;
  readonly #log: (line: string) => void;
  readonly #highWaterMark: number;
  #handle?: Promise<FileHandle | undefined>;
  #chain: Promise<void> = Promise.resolve();
  #pendingBytes = 0;
  #waiters: Array<() => void> = [];
  #failed = false;
  #appended = false;

  constructor(file: string, log: (line: string) => void, highWaterMark = 1024 * 1024) {
    this.file = file;
    this.#log = log;
    this.#highWaterMark = highWaterMark;
  }

  /** Appends one JSON line; resolves at once unless too much is pending. */
  append(value: unknown): Promise<void> {
    if (this.#failed) return Promise.resolve();
    const line = `${JSON.stringify(value)}\n`;
    this.#appended = true;
    this.#pendingBytes += line.length;
    this.#enqueue(async (handle) => {
      await handle.write(line);
    }, line.length);
    if (this.#pendingBytes <= this.#highWaterMark) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Resolves once every line appended so far is written and fsync'd. */
  sync(): Promise<void> {
    // Nothing appended yet: no file is created (an idle session leaves no empty transcript).
    if (!this.#appended) return this.#chain;
    this.#enqueue((handle) => handle.sync(), 0);
    return this.#chain;
  }

  /** Writes, fsyncs and closes the file. */
  async close(): Promise<void> {
    await this.sync();
    const handle = await this.#handle;
    this.#handle = Promise.resolve(undefined);
    await handle?.close().catch(() => undefined);
  }

  #enqueue(step: (handle: FileHandle) => Promise<unknown>, bytes: number): void {
    this.#chain = this.#chain.then(async () => {
      try {
        const handle = await this.#open();
        if (handle && !this.#failed) await step(handle);
      } catch (error) {
        this.#fail(error as Error);
      } finally {
        this.#pendingBytes -= bytes;
        if (this.#pendingBytes <= this.#highWaterMark) for (const wake of this.#waiters.splice(0)) wake();
      }
    });
  }

  #open(): Promise<FileHandle | undefined> {
    this.#handle ??= (async () => {
      await mkdir(path.dirname(this.file), { recursive: true });
      const handle = await open(this.file, 'a+');
      // A torn last line (a killed writer) must not swallow the first new line.
      const { size } = await handle.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) await handle.write('\n');
      }
      return handle;
    })().catch((error: Error) => {
      this.#fail(error);
      return undefined;
    });
    return this.#handle;
  }

  #fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#log(
      `agentpipe: warning: cannot write the transcript ${this.file}: ${error.message}; the session is not saved`,
    );
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
