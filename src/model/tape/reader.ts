/**
 * Reads a tape: every line parsed and checked with the schema (a bad line is named by its number), and what the
 * recording saw of its working folder mapped to the folder the replay runs in, except in the recorded requests (a
 * replay's requests are mapped the other way before they are compared).
 */
import { AgentpipeError, errorCode, errorMessage } from '../../process/errors.ts';
import { readFileSync, statSync } from 'node:fs';
import type { Tape, TapeLine } from './format.ts';
import { mapChunks, mapMessages, mapTimedEvents } from './deltas.ts';
import { mapStrings, placesMapper, type PathMap } from './scene.ts';
import { parseHeader, parseLine } from './schema.ts';

/** A tape larger than this is refused (a JavaScript string holds at most ~512 MB). */
const MAX_TAPE_BYTES = 256 * 1024 * 1024;

/** A tape that cannot be read: missing, too large, not a tape, a malformed line. */
export class TapeError extends AgentpipeError {
  static override readonly errorName: string = 'TapeError';
}

/**
 * Reads `file`; `cwd` and `places`: the folders of the replay (default: the recorded ones), which the recorded ones
 * are mapped to.
 */
export function readTape(file: string, options: { cwd?: string; places?: Record<string, string> } = {}): Tape {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_TAPE_BYTES) throw new TapeError(`the tape ${file} is larger than ${MAX_TAPE_BYTES >> 20} MB`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (TapeError.isInstance(error)) throw error;
    throw new TapeError(`cannot read the tape ${file}: ${errorCode(error) ?? String(error)}`);
  }
  const rows = text.split('\n');
  const parse = (row: string, number: number): unknown => {
    try {
      return JSON.parse(row);
    } catch (error) {
      throw new TapeError(`${file}:${number}: not JSON (${errorMessage(error)})`);
    }
  };
  let header;
  try {
    header = parseHeader(parse(rows[0] ?? '', 1));
  } catch (error) {
    throw new TapeError(`${file}:1: ${errorMessage(error)}`);
  }
  const recorded = { cwd: [header.cwd, ...(header.realCwd ? [header.realCwd] : [])], places: header.places ?? {} };
  const map = placesMapper(recorded, { cwd: [options.cwd ?? header.cwd], places: options.places ?? recorded.places });
  // The session's options may name the folder too (an MCP server's script in it, an --add-dir below it).
  if (map) header = { ...header, session: mapStrings(header.session, map) };
  const lines: TapeLine[] = [];
  for (let i = 1; i < rows.length; i++) {
    const row = rows[i]!;
    if (!row.trim()) continue;
    let line: TapeLine | undefined;
    try {
      line = parseLine(parse(row, i + 1));
    } catch (error) {
      if (TapeError.isInstance(error)) throw error;
      throw new TapeError(`${file}:${i + 1}: ${errorMessage(error)}`);
    }
    if (line) lines.push(line);
  }
  return { file, header, lines: map ? inScene(lines, map) : lines };
}

/**
 * The lines with the recorded folders mapped, except in the requests a replay compares against; streamed texts (an
 * answer's deltas, a wire response's chunks, the stream's `stream_event` messages) as wholes.
 */
function inScene(lines: TapeLine[], map: PathMap): TapeLine[] {
  const messages = mapMessages(
    lines.flatMap((l) => (l.type === 'message' ? [l.message] : [])),
    map,
  );
  let next = 0;
  return lines.map((line): TapeLine => {
    switch (line.type) {
      case 'model_request':
        return line;
      case 'model_response': {
        const { events, ...rest } = line;
        return { ...mapStrings(rest, map), events: mapTimedEvents(events, map) };
      }
      case 'http':
        return line.encoding === 'base64'
          ? line
          : { ...line, chunks: mapChunks(line.chunks, line.api, line.content_type, map) };
      case 'message':
        return { type: 'message', message: messages[next++]! };
      default:
        return mapStrings(line, map);
    }
  });
}
