/**
 * The output of a print run: every line the session sends, through the output format, to stdout
 * (backpressured), and the count of what the run owes: the result of each prompt that started.
 * `seal()` ends the output, with the result a stopped run still owes: nothing the session sends
 * after it gets out, so a prompt never has two results, and the owed one is always last.
 */
import type { ResultMessage } from '../messages/types.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { stdoutWriter } from '../pipeline/fd-writer.ts';
import { pipeOutput } from '../pipeline/output.ts';
import type { OutputFormat, OutputLine } from '../pipeline/format/index.ts';

export class PrintOutput {
  readonly #queue = new AsyncMessageQueue<OutputLine>({ highWaterMark: 256 });
  /** Resolves once every line was written and stdout flushed. */
  readonly done: Promise<void>;
  #sealed = false;
  #open = false;
  #results = 0;

  /** `onClosed`: the reader of stdout went away (no error) or stdout failed (the error). */
  constructor(format: OutputFormat, onClosed: (error?: Error) => void) {
    this.done = pipeOutput(this.#queue, format, stdoutWriter(onClosed));
  }

  /** Hands a line on (a promise while the output is full); dropped once sealed. */
  readonly send = (line: OutputLine): Promise<void> | undefined => {
    if (this.#sealed) return undefined;
    if (line.type === 'system' && line.subtype === 'init') this.#open = true;
    else if (line.type === 'result') {
      this.#open = false;
      this.#results++;
    }
    return this.#queue.push(line);
  };

  /** Results sent so far. */
  get results(): number {
    return this.#results;
  }

  /** True between a prompt's `system/init` and its result. */
  get promptOpen(): boolean {
    return this.#open;
  }

  /** Ends the output, with `result` last when given; later lines are dropped. */
  seal(result?: ResultMessage): void {
    if (this.#sealed) return;
    if (result) void this.send(result);
    this.#sealed = true;
    this.#queue.done();
  }

  /** The reader is gone: nothing more is written. */
  abandon(): void {
    this.#sealed = true;
    void this.#queue.return();
  }
}
