/**
 * The one newline-delimited JSON framer: splits a byte (or text) stream into lines with one size
 * cap. An oversized line is skipped to its end (its bytes counted, never held) and reported with
 * its first characters; the stream goes on. Each chunk is scanned once, so a huge line costs linear
 * time. Used for agentpipe's own input (transport/ndjson.ts), WebSocket frames (`frameLines`: the servers, the
 * cluster's front end),
 * the wrapped CLIs' stdout (harness/cli-process.ts) and ACP agents (harness/acp/link.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import { envNumber } from '../process/env-number.ts';

/** Default cap of one line (characters): 64 Mi, enough for large images. */
export const DEFAULT_MAX_LINE = 64 * 1024 * 1024;

/** Characters of an oversized line kept to tell what it was (messages/parse.ts `refusedFromHead`). */
const HEAD_CHARS = 4096;

/** The cap: `AGENTPIPE_MAX_INPUT_LINE` (characters) when set to a positive number, else the default. */
export function maxLineFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return envNumber('AGENTPIPE_MAX_INPUT_LINE', DEFAULT_MAX_LINE, { integer: true, env });
}

/**
 * One framed line (1-based `number`, blank lines counted but never yielded), or a line over the cap:
 * its size and its first characters (up to 4096, what was held before the cap was passed).
 */
export type FramedLine = { line: string; number: number } | { tooLong: number; head: string; number: number };

/** The first HEAD_CHARS characters of the pieces joined, without joining them all. */
function headOf(pieces: string[]): string {
  let head = '';
  for (const piece of pieces) {
    head += piece.slice(0, HEAD_CHARS - head.length);
    if (head.length >= HEAD_CHARS) break;
  }
  return head;
}

/** Push-based splitter: `push` each chunk as it arrives, `end` when the stream ends. */
export class LineSplitter {
  readonly maxLine: number;
  readonly #decoder = new StringDecoder('utf8');
  #parts: string[] = [];
  #length = 0;
  /** Inside a line over the cap: counted to its end, not kept. */
  #skipping = false;
  #head = '';
  #number = 0;

  constructor(maxLine = DEFAULT_MAX_LINE) {
    this.maxLine = maxLine;
  }

  /** The lines that `chunk` completes. */
  push(chunk: Uint8Array | string): FramedLine[] {
    const out: FramedLine[] = [];
    let rest = chunk;
    // Skipping a line that is too long: count its bytes without decoding them (memory stays flat).
    if (this.#skipping && typeof rest !== 'string') {
      const newline = rest.indexOf(0x0a);
      if (newline === -1) {
        this.#length += rest.length;
        return out;
      }
      this.#length += newline;
      this.#finish('', out);
      rest = rest.subarray(newline + 1);
    }
    const text = typeof rest === 'string' ? rest : this.#decoder.write(rest);
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      this.#finish(text.slice(start, newline), out);
      start = newline + 1;
    }
    this.#hold(text.slice(start));
    return out;
  }

  /** The last line, when the stream does not end with a newline. */
  end(): FramedLine[] {
    const out: FramedLine[] = [];
    const tail = this.#decoder.end();
    if (this.#skipping) {
      this.#length += tail.length;
      this.#finish('', out);
    } else if (this.#parts.length > 0 || tail) this.#finish(tail, out);
    return out;
  }

  /** Keeps the start of an unfinished line, or starts skipping it once it is over the cap. */
  #hold(piece: string): void {
    this.#length += piece.length;
    if (this.#skipping) return;
    if (this.#length > this.maxLine) {
      this.#head = headOf([...this.#parts, piece]);
      this.#skipping = true;
      this.#parts = [];
    } else if (piece) this.#parts.push(piece);
  }

  #finish(tail: string, out: FramedLine[]): void {
    const number = ++this.#number;
    const total = this.#length + tail.length;
    if (this.#skipping || total > this.maxLine) {
      const head = this.#skipping ? this.#head : headOf([...this.#parts, tail]);
      out.push({ tooLong: total, head, number });
    } else {
      const line = (this.#parts.join('') + tail).replace(/\r$/, '');
      if (line.trim()) out.push({ line, number });
    }
    this.#parts = [];
    this.#length = 0;
    this.#skipping = false;
    this.#head = '';
  }
}

/**
 * The non-blank lines of one whole text: a WebSocket frame (a frame may hold several lines). Every server and client
 * caps a frame (`maxPayload`) at the line cap (`maxLineFromEnv`), so no line of a frame is over it.
 */
export function frameLines(data: Uint8Array | ArrayBuffer | Uint8Array[] | string): string[] {
  const splitter = new LineSplitter();
  const chunks = Array.isArray(data) ? data : [data instanceof ArrayBuffer ? new Uint8Array(data) : data];
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()].flatMap((item) =>
    'line' in item ? [item.line] : [],
  );
}

/** Yields the non-blank lines of a stream, or `tooLong` for a line over `maxLine`. */
export async function* readLines(
  source: AsyncIterable<Uint8Array | string>,
  maxLine = DEFAULT_MAX_LINE,
): AsyncGenerator<FramedLine> {
  const splitter = new LineSplitter(maxLine);
  for await (const chunk of source) yield* splitter.push(chunk);
  yield* splitter.end();
}
