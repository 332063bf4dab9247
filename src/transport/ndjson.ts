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

/** One framed line (1-based `number`), or the size of a line over the cap. */
export type FramedLine = { line: string; number: number } | { tooLong: number; number: number };

/** Yields the non-blank lines of a byte stream, or `tooLong` for a line over `maxLine`. */
export async function* readLines(
  source: AsyncIterable<Buffer | string>,
  maxLine = DEFAULT_MAX_LINE,
): AsyncGenerator<FramedLine> {
  const decoder = new StringDecoder('utf8');
  let parts: string[] = [];
  let length = 0;
  let skipping = false;
  let number = 0;
  const finish = (tail: string): FramedLine | undefined => {
    number++;
    const total = length + tail.length;
    const over = skipping || total > maxLine;
    const line = over ? '' : (parts.join('') + tail).replace(/\r$/, '');
    parts = [];
    length = 0;
    skipping = false;
    if (over) return { tooLong: total, number };
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
  const { parseInputLine } = await import('../messages/parse.ts'); // zod: loaded when input is read, not at startup
  for await (const item of readLines(source, maxLine)) {
    if ('tooLong' in item) {
      yield {
        ok: false,
        error:
          `line ${item.number}: a line of ${item.tooLong} characters is over the limit of ${maxLine} ` +
          `(AGENTPIPE_MAX_INPUT_LINE)`,
      };
      continue;
    }
    const parsed = parseInputLine(item.line);
    yield parsed.ok ? parsed : { ok: false, error: `line ${item.number}: ${parsed.error}` };
  }
}
