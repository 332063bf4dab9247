/**
 * The byte layer of `query()`'s child-process engine: spawns the CLI, frames its stdout into
 * lines, writes JSON lines to its stdin with backpressure, and stops it in stages. It knows nothing of
 * the control protocol; `child-process.ts` builds that on top (as the MCP SDK splits
 * `StdioClientTransport` from `Protocol`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readLines } from '../messages/ndjson.ts';

/** How to start the child. */
export interface StdioTransportOptions {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string | undefined>;
  /** Receives each stderr line of the child. */
  onStderr?: (line: string) => void;
  /** How long `close()` waits after SIGTERM before SIGKILL (default 2000 ms). */
  graceMs?: number;
}

/** One JSON value per stdout line, a way to write lines, and a staged stop. */
export class StdioTransport {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #graceMs: number;
  #stderrTail = '';
  #inputEnded = false;
  #terminated = false;
  #startError: Error | undefined;
  /** Resolves with the exit code (null when killed by a signal, -1 when it could not start). */
  readonly exited: Promise<number | null>;

  constructor(options: StdioTransportOptions) {
    this.#graceMs = options.graceMs ?? 2000;
    this.#child = spawn(options.command, options.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: options.env,
      cwd: options.cwd,
    });
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderrTail = (this.#stderrTail + chunk).slice(-2000);
      for (const line of chunk.split('\n')) if (line) options.onStderr?.(line);
    });
    // A closed pipe surfaces as a failed write() or as the exit; never as an unhandled error.
    this.#child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => {
      this.#child.on('close', (code) => resolve(code));
      this.#child.on('error', (error) => {
        this.#startError = error;
        resolve(-1);
      });
    });
  }

  /** True once `close()` sent SIGTERM: the child then exits with 143 (128 + SIGTERM), which is no failure. */
  get terminated(): boolean {
    return this.#terminated;
  }

  /** The last 2,000 characters the child wrote to stderr. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Why the child could not be started, if it could not. */
  get startError(): Error | undefined {
    return this.#startError;
  }

  /** True while the child runs and its stdin is open. */
  get writable(): boolean {
    return !this.#inputEnded && this.#child.exitCode === null && this.#child.stdin.writable;
  }

  /** The child's stdout, line by line (blank lines skipped); a read error rejects the iteration. */
  async *lines(): AsyncGenerator<string> {
    for await (const item of readLines(this.#child.stdout)) if ('line' in item) yield item.line;
  }

  /** Writes one JSON line; resolves once the pipe can take more (false when the input is closed). */
  async send(value: object): Promise<boolean> {
    if (!this.writable) return false;
    if (this.#child.stdin.write(`${JSON.stringify(value)}\n`)) return true;
    const stop = new AbortController();
    const waits = [
      once(this.#child.stdin, 'drain', { signal: stop.signal }),
      once(this.#child.stdin, 'close', { signal: stop.signal }),
    ];
    try {
      await Promise.race([...waits, this.exited]);
    } finally {
      stop.abort(); // removes the listeners of the waits that lost
      await Promise.allSettled(waits);
    }
    return true;
  }

  /** Ends the child's stdin: it finishes its work and exits. */
  endInput(): void {
    if (this.#inputEnded) return;
    this.#inputEnded = true;
    this.#child.stdin.end();
  }

  /**
   * Stops the child in stages: end stdin and SIGTERM (agentpipe ends the running prompt with its
   * result on either), wait, then SIGKILL. Resolves when it exited.
   */
  async close(): Promise<void> {
    this.endInput();
    if (this.#child.exitCode !== null || this.#child.signalCode !== null || this.#startError) return;
    this.#terminated = true;
    this.#child.kill('SIGTERM');
    if (await this.#exitsWithin(this.#graceMs)) return;
    this.#child.kill('SIGKILL');
    await this.exited;
  }

  async #exitsWithin(ms: number): Promise<boolean> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null || this.#startError) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      timer.unref();
    });
    const done = await Promise.race([this.exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return done;
  }
}
