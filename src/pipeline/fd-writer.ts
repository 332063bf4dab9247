/**
 * A backpressured text writer straight onto a file descriptor (the CLI's stdout when it is a
 * pipe, a socket or a file), with node:fs's write(). `process.stdout` would build a net.Socket or
 * a SyncWriteStream on top, and loading Node's stream modules for it costs ~3 ms of every CLI
 * start-up. Texts written within one tick leave in one write(2); one write is in flight at a
 * time (on libuv's thread pool, so a slow reader never blocks the event loop); `write()` makes
 * its caller wait while more than `highWaterMark` characters are pending, so memory stays
 * bounded.
 *
 * A reader that went away (EPIPE) closes the writer quietly, as StreamWriter does. A descriptor
 * that would block (EAGAIN: a non-blocking pipe the parent shares with us) is not polled here:
 * what is pending, and every later write, goes to the stream `fallback()` returns
 * (`process.stdout`), which waits for the pipe through libuv. Order is kept.
 */
import { fstatSync, write as writeFd } from 'node:fs';
import type { Writable } from 'node:stream';
import { registerStdioWriter } from '../process/stdio.ts';
import { StreamWriter, type TextWriter } from './writer.ts';

export class FdWriter implements TextWriter {
  readonly #fd: number;
  readonly #highWaterMark: number;
  readonly #fallback: () => Writable;
  #onClose?: (err?: Error) => void;
  #pending: string[] = [];
  #pendingChars = 0;
  #scheduled = false;
  #inFlight = false;
  #closed = false;
  #delegate?: StreamWriter;
  #waiters: Array<() => void> = [];
  #flushWaiters: Array<() => void> = [];

  constructor(
    fd: number,
    onClose?: (err?: Error) => void,
    options: { highWaterMark?: number; fallback?: () => Writable } = {},
  ) {
    this.#fd = fd;
    this.#onClose = onClose;
    this.#highWaterMark = options.highWaterMark ?? 64 * 1024;
    this.#fallback = options.fallback ?? (() => process.stdout);
  }

  /** True once the reader went away (or the descriptor failed). */
  get closed(): boolean {
    return this.#delegate ? this.#delegate.closed : this.#closed;
  }

  /** Queues `text`; resolves at once unless more than highWaterMark characters are pending. */
  write(text: string): Promise<void> {
    if (this.#delegate) return this.#delegate.write(text);
    if (this.#closed || text.length === 0) return Promise.resolve();
    this.#pending.push(text);
    this.#pendingChars += text.length;
    if (!this.#scheduled && !this.#inFlight) {
      this.#scheduled = true;
      process.nextTick(() => {
        this.#scheduled = false;
        this.#pump();
      });
    }
    if (this.#pendingChars <= this.#highWaterMark) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Resolves once everything written so far reached the OS (or the reader is gone). */
  flush(): Promise<void> {
    if (this.#delegate) return this.#delegate.flush();
    if (this.#closed || (this.#pendingChars === 0 && !this.#inFlight)) return Promise.resolve();
    return new Promise((resolve) => this.#flushWaiters.push(resolve));
  }

  #pump(): void {
    if (this.#inFlight || this.#closed || this.#delegate || this.#pending.length === 0) return;
    const text = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join('');
    this.#pending = [];
    this.#inFlight = true;
    this.#send(Buffer.from(text), text.length);
  }

  /** Writes `buffer` (`chars` characters of pending text) to the end, through partial writes. */
  #send(buffer: Buffer, chars: number): void {
    writeFd(this.#fd, buffer, 0, buffer.length, null, (error, written) => {
      if (error) {
        this.#inFlight = false;
        if (error.code === 'EAGAIN') this.#handOver(buffer);
        else this.#close(error.code === 'EPIPE' ? undefined : error);
        return;
      }
      if (written < buffer.length) {
        this.#send(buffer.subarray(written), chars);
        return;
      }
      this.#inFlight = false;
      this.#pendingChars -= chars;
      if (this.#pendingChars <= this.#highWaterMark) for (const wake of this.#waiters.splice(0)) wake();
      if (this.#pending.length > 0) this.#pump();
      else for (const done of this.#flushWaiters.splice(0)) done();
    });
  }

  /** The descriptor would block: the rest, and all later writes, go through the fallback stream. */
  #handOver(unwritten: Buffer): void {
    const onClose = this.#onClose;
    this.#onClose = undefined;
    const stream = this.#fallback();
    // The bytes as they are: a partial write may have stopped inside a character.
    stream.write(unwritten);
    const delegate = new StreamWriter(stream, onClose);
    this.#delegate = delegate;
    const rest = this.#pending.join('');
    this.#pending = [];
    this.#pendingChars = 0;
    if (rest) void delegate.write(rest);
    for (const wake of this.#waiters.splice(0)) wake();
    const flushWaiters = this.#flushWaiters.splice(0);
    if (flushWaiters.length > 0) void delegate.flush().then(() => flushWaiters.forEach((done) => done()));
  }

  #close(err?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.#pendingChars = 0;
    for (const wake of this.#waiters.splice(0)) wake();
    for (const done of this.#flushWaiters.splice(0)) done();
    this.#onClose?.(err);
  }
}

/**
 * The writer for the CLI's stdout: an FdWriter on fd 1 when it is a pipe, a socket or a regular
 * file; Node's own stream (`process.stdout`) for a terminal or anything else.
 */
export function stdoutWriter(onClose?: (err?: Error) => void): TextWriter {
  let direct = false;
  try {
    const stat = fstatSync(1);
    direct = stat.isFIFO() || stat.isSocket() || stat.isFile();
  } catch {
    direct = false;
  }
  if (!direct) return new StreamWriter(process.stdout, onClose);
  const writer = new FdWriter(1, onClose);
  // An exit on another path (an internal error) still waits for what is pending.
  registerStdioWriter(writer);
  return writer;
}
