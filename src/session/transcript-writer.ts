/**
 * An append-only JSONL file written by one serial writer: lines are written in the order they
 * were appended, one write at a time, and `append()` only makes the caller wait when more
 * than `highWaterMark` bytes are pending (memory stays bounded when the disk is slow).
 * `sync()` fsyncs what was written so far (called at turn boundaries). A write error (a full disk)
 * is reported once, in words, and disables the writer: the session goes on without a transcript,
 * and a file it created and could not write a line to is removed (no empty transcripts).
 */
import { close, fstat, fsync, open, read, unlink, write, type Stats } from 'node:fs';
import { transcriptOff } from './write-failure.ts';
import path from 'node:path';
import { makePrivateFolder, PRIVATE_FILE, tightenFile } from '../process/private-files.ts';

/**
 * node:fs's callback API as promises. Not node:fs/promises: it loads ~20 modules (readline among
 * them), ~3 ms of every CLI start-up, and a print run writes its transcript before it ends.
 */
function call<T = void>(start: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value))));
}

export class TranscriptWriter {
  readonly file: string;
  readonly #log: (line: string) => void;
  readonly #highWaterMark: number;
  #fd?: Promise<number | undefined>;
  #chain: Promise<void> = Promise.resolve();
  #pendingBytes = 0;
  #waiters: Array<() => void> = [];
  #failed = false;
  #appended = false;
  /** The file was created (or found empty) by this writer; `#written`: a line reached it. */
  #startedEmpty = false;
  #written = false;

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
    this.#enqueue(async (fd) => {
      await call<number>((done) => write(fd, line, done));
      this.#written = true;
    }, line.length);
    if (this.#pendingBytes <= this.#highWaterMark) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Resolves once every line appended so far is written and fsync'd. */
  sync(): Promise<void> {
    // Nothing appended yet: no file is created (an idle session leaves no empty transcript).
    if (!this.#appended) return this.#chain;
    this.#enqueue((fd) => call((done) => fsync(fd, (error) => done(error, undefined))), 0);
    return this.#chain;
  }

  /** Writes, fsyncs and closes the file. */
  async close(): Promise<void> {
    await this.sync();
    const fd = await this.#fd;
    this.#fd = Promise.resolve(undefined);
    // The lines are synced above (a failure there is reported); a failed close loses nothing.
    if (fd !== undefined) await call((done) => close(fd, (error) => done(error, undefined))).catch(() => undefined);
  }

  #enqueue(step: (fd: number) => Promise<unknown>, bytes: number): void {
    this.#chain = this.#chain.then(async () => {
      try {
        const fd = await this.#open();
        if (fd !== undefined && !this.#failed) await step(fd);
      } catch (error) {
        this.#fail(error);
      } finally {
        this.#pendingBytes -= bytes;
        if (this.#pendingBytes <= this.#highWaterMark) for (const wake of this.#waiters.splice(0)) wake();
      }
    });
  }

  #open(): Promise<number | undefined> {
    this.#fd ??= (async () => {
      // The owner's only (0600 in a 0700 folder): a transcript holds the whole conversation.
      await makePrivateFolder(path.dirname(this.file));
      const fd = await call<number>((done) => open(this.file, 'a+', PRIVATE_FILE, done));
      try {
        await tightenFile(fd);
        // A torn last line (a killed writer) must not swallow the first new line.
        const stats = await call<Stats>((done) => fstat(fd, done));
        const size = stats.size;
        this.#startedEmpty = size === 0 && stats.isFile();
        if (size > 0) {
          const last = Buffer.alloc(1);
          await call<number>((done) => read(fd, last, 0, 1, size - 1, done));
          if (last[0] !== 0x0a) await call<number>((done) => write(fd, '\n', done));
        }
      } catch (error) {
        close(fd, () => undefined);
        throw error;
      }
      return fd;
    })().catch((error: unknown) => {
      this.#fail(error);
      return undefined;
    });
    return this.#fd;
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#log(transcriptOff(this.file, error, this.#written));
    if (this.#startedEmpty && !this.#written) unlink(this.file, () => undefined);
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
