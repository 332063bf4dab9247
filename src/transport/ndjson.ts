/**
 * Newline-delimited JSON framing: splits a byte stream into lines with a size cap and parses
 * each into an input message. An oversized line is skipped to its end and reported; the
 * stream goes on.
 */
import { StringDecoder } from 'node:string_decoder';
import { parseInputLine, type ParsedLine } from '../messages/parse.ts';

/** Default cap of one input line (bytes of UTF-16 text): 64 MiB, enough for large images. */
export const DEFAULT_MAX_LINE = 64 * 1024 * 1024;

/** Yields the lines of a byte stream, or an error for a line over `maxLine`. */
export async function* readLines(source: AsyncIterable<Buffer | string>, maxLine = DEFAULT_MAX_LINE): AsyncGenerator<{ line: string } | { tooLong: number }> {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let skipping = 0;
  for await (const chunk of source) {
    buffer += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (skipping) {
        yield { tooLong: skipping + line.length };
        skipping = 0;
      } else if (line.length > maxLine) yield { tooLong: line.length };
      else if (line.trim()) yield { line: line.replace(/\r$/, '') };
    }
    if (buffer.length > maxLine) {
      skipping += buffer.length;
      buffer = '';
    }
  }
  buffer += decoder.end();
  if (skipping) yield { tooLong: skipping + buffer.length };
  else if (buffer.trim()) yield { line: buffer };
}

/** Parsed input messages of a byte stream. */
export async function* readInputMessages(source: AsyncIterable<Buffer | string>, maxLine = DEFAULT_MAX_LINE): AsyncGenerator<ParsedLine> {
  for await (const item of readLines(source, maxLine)) {
    if ('tooLong' in item) yield { ok: false, error: `line of ${item.tooLong} characters is over the ${maxLine} character limit` };
    else yield parseInputLine(item.line);
  }
}
