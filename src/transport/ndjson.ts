/**
 * Newline-delimited JSON framing: splits a byte stream into lines with a size cap and parses
 * each into an input message. An oversized line is skipped to its end and reported; the
 * stream goes on. Each chunk is scanned once, so a huge line costs linear time.
 */
import { envNumber } from '../process/env-number.ts';
import { StringDecoder } from 'node:string_decoder';
import type { ParsedLine } from '../messages/parse.ts';

/** Default cap of one input line (characters): 64 Mi, enough for large images. */
export const DEFAULT_MAX_LINE = 64 * 1024 * 1024;

/** The cap: `AGENTPIPE_MAX_INPUT_LINE` (characters) when set to a positive number, else the default. */
export function maxLineFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return envNumber('AGENTPIPE_MAX_INPUT_LINE', DEFAULT_MAX_LINE, { integer: true, env });
}

/** One framed line (1-based `number`), or the size and the first characters of a line over the cap. */
export type FramedLine = { line: string; number: number } | { tooLong: number; number: number; head: string };

/** How much of a line over the cap is kept, to tell what it was (parse.ts `refusedFromHead`). */
const HEAD_CHARS = 4096;

/** The first HEAD_CHARS characters of `parts` followed by `tail`. */
function headOf(parts: string[], tail: string): string {
  let head = '';
  for (const part of [...parts, tail]) {
    head += part.slice(0, HEAD_CHARS - head.length);
    if (head.length >= HEAD_CHARS) break;
  }
  return head;
}

/** Yields the non-blank lines of a byte stream, or `tooLong` for a line over `maxLine`. */
export async function* readLines(
  source: AsyncIterable<Buffer | string>,
  maxLine = DEFAULT_MAX_LINE,
): AsyncGenerator<FramedLine> {
  const decoder = new StringDecoder('utf8');
  let parts: string[] = [];
  let length = 0;
  let skipping = false;
  let head = '';
  let number = 0;
  const finish = (tail: string): FramedLine | undefined => {
    number++;
    const total = length + tail.length;
    const over = skipping || total > maxLine;
    if (over && !skipping) head = headOf(parts, tail);
    const line = over ? '' : (parts.join('') + tail).replace(/\r$/, '');
    parts = [];
    length = 0;
    skipping = false;
    if (over) return { tooLong: total, number, head };
    return line.trim() ? { line, number } : undefined;
  };
  for await (const raw of source) {
    let chunk = raw;
    // Skipping a line that is too long: count its bytes without decoding them (memory stays flat).
    if (skipping && typeof chunk !== 'string') {
      const newline = chunk.indexOf(0x0a);
      if (newline === -1) {
        length += chunk.length;
        continue;
      }
      length += chunk.subarray(0, newline).length;
      const item = finish('');
      if (item) yield item;
      chunk = chunk.subarray(newline + 1);
    }
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    let newline: number;
    while ((newline = text.indexOf('\n', start)) !== -1) {
      const item = finish(text.slice(start, newline));
      if (item) yield item;
      start = newline + 1;
    }
    const rest = text.slice(start);
    length += rest.length;
    if (skipping || length > maxLine) {
      if (!skipping) head = headOf(parts, rest);
      skipping = true;
      parts = [];
    } else if (rest) parts.push(rest);
  }
  const tail = decoder.end();
  if (skipping || parts.length > 0 || tail) {
    if (skipping) length += tail.length;
    const item = finish(skipping ? '' : tail);
    if (item) yield item;
  }
}

/** Parsed input messages of a byte stream; a rejected line's error names its line number. */
export async function* readInputMessages(
  source: AsyncIterable<Buffer | string>,
  maxLine = DEFAULT_MAX_LINE,
): AsyncGenerator<ParsedLine> {
  // Loaded when input is read, not at start-up.
  const { parseInputLine, refusedFromHead } = await import('../messages/parse.ts');
  for await (const item of readLines(source, maxLine)) {
    if ('tooLong' in item) {
      yield {
        ok: false,
        error:
          `line ${item.number}: a line of ${item.tooLong} characters is over the limit of ${maxLine} ` +
          `(AGENTPIPE_MAX_INPUT_LINE)`,
        refused: refusedFromHead(item.head),
      };
      continue;
    }
    const parsed = parseInputLine(item.line);
    yield parsed.ok ? parsed : { ...parsed, error: `line ${item.number}: ${parsed.error}` };
  }
}
