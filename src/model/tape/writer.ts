/**
 * Writes a tape: the header at once, then one JSON line per record, buffered and written synchronously at the end of
 * each answer, exchange and prompt (so a tape holds what happened when the process exits, whatever path it exits by).
 * Every line is scrubbed of the secrets the writer was given (the values of the key variables agentpipe knows, a key
 * given as an option). The file is private (0600): it holds the conversation, like a transcript.
 */
import { errorMessage } from '../../process/errors.ts';
import { closeSync, openSync, writeSync } from 'node:fs';
import { SECRET_VARIABLES } from '../../process/env.ts';
import type { TapeHeader, TapeLine } from './format.ts';

/** Written when the buffer holds this much, at each `flush()` and at `close()`. */
const FLUSH_BYTES = 256 * 1024;

/** What stands where a secret was. */
export const REDACTED = '<redacted>';

/** The values of the key variables in `env` (and `extra`), long enough to be keys, for the writer to scrub. */
export function secretsOf(env: Record<string, string | undefined>, extra: Array<string | undefined> = []): string[] {
  const values = [...SECRET_VARIABLES.map((name) => env[name]), ...extra];
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= 8))];
}

export class TapeWriter {
  readonly file: string;
  readonly #fd: number;
  readonly #secrets: string[];
  readonly #warn: (line: string) => void;
  #buffer: string[] = [];
  #bytes = 0;
  #failed = false;
  #closed = false;
  #requests = 0;

  /**
   * Opens `file` and writes the header (or, with `append`, goes on after what the tape holds: a resumed session's
   * tape); throws when the file cannot be opened.
   */
  constructor(
    file: string,
    header: TapeHeader,
    secrets: string[],
    warn: (line: string) => void,
    append?: { requests: number },
  ) {
    this.file = file;
    // Each secret as it stands in a JSON string too (a quote or backslash in it is escaped there).
    this.#secrets = [...new Set(secrets.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))];
    this.#warn = warn;
    this.#fd = openSync(file, append ? 'a' : 'w', 0o600);
    if (append) this.#requests = append.requests;
    else this.#push(header);
    this.flush();
  }

  /** The number of the next model request or HTTP exchange (in the order they were made). */
  nextRequest(): number {
    return this.#requests++;
  }

  /** Buffers a line; written at once when it ends something (an answer, an exchange, a prompt's result). */
  write(line: TapeLine): void {
    if (this.#closed || this.#failed) return;
    this.#push(line);
    const ends =
      line.type === 'model_response' ||
      line.type === 'http' ||
      (line.type === 'message' && line.message.type === 'result');
    if (ends || this.#bytes >= FLUSH_BYTES) this.flush();
  }

  #push(line: object): void {
    let text = JSON.stringify(line);
    for (const secret of this.#secrets) if (text.includes(secret)) text = text.replaceAll(secret, REDACTED);
    this.#buffer.push(text, '\n');
    this.#bytes += text.length + 1;
  }

  /** Writes what is buffered. A failure (a full disk) is said once; the tape then stops growing. */
  flush(): void {
    if (this.#buffer.length === 0 || this.#failed) return;
    const data = Buffer.from(this.#buffer.join(''), 'utf8');
    this.#buffer = [];
    this.#bytes = 0;
    try {
      for (let at = 0; at < data.length;) at += writeSync(this.#fd, data, at);
    } catch (error) {
      this.#failed = true;
      this.#warn(`the tape ${this.file} could not be written (${errorMessage(error)}); it is incomplete`);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    closeSync(this.#fd);
  }
}
