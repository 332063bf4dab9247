/**
 * agentpipe's NDJSON input: the lines of a byte stream (messages/ndjson.ts frames them, with the
 * one size cap) parsed into input messages. An oversized line is reported and the stream goes on.
 */
import type { ParsedLine } from '../messages/parse.ts';
import { DEFAULT_MAX_LINE, readLines } from '../messages/ndjson.ts';

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
