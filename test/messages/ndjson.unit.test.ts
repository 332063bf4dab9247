/** The one NDJSON framer (src/messages/ndjson.ts): lines, their numbers, and the size cap. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameLines, LineSplitter, maxLineFromEnv, readLines, type FramedLine } from '../../src/messages/ndjson.ts';

async function* chunks(...parts: Array<string | Buffer>): AsyncGenerator<string | Buffer> {
  yield* parts;
}

async function collect(source: AsyncIterable<string | Buffer>, maxLine?: number): Promise<FramedLine[]> {
  const out: FramedLine[] = [];
  for await (const item of readLines(source, maxLine)) out.push(item);
  return out;
}

test('lines split across chunks and inside a UTF-8 character; CRLF; blank lines counted, not yielded', async () => {
  const bytes = Buffer.from('{"a":"é"}\r\n\n  \n{"b":2}\n{"c":3}');
  const cut = bytes.indexOf(0xc3) + 1; // inside "é"
  assert.deepEqual(await collect(chunks(bytes.subarray(0, cut), bytes.subarray(cut))), [
    { line: '{"a":"é"}', number: 1 },
    { line: '{"b":2}', number: 4 },
    { line: '{"c":3}', number: 5 },
  ]);
});

test('a line over the cap is reported with its size and head, and the stream goes on', async () => {
  const long = `{"x":"${'y'.repeat(300)}"}`;
  const bytes = Buffer.from(`{"a":1}\n${long}\n{"b":2}\n`);
  // Whole, and one byte at a time (skipping then counts bytes without keeping them).
  // The head is what was held before the cap was passed (up to 4096 characters).
  for (const [parts, head] of [
    [[bytes], long.length],
    [[...bytes].map((b) => Buffer.from([b])), 101],
  ] as const) {
    assert.deepEqual(await collect(chunks(...parts), 100), [
      { line: '{"a":1}', number: 1 },
      { tooLong: long.length, head: long.slice(0, head), number: 2 },
      { line: '{"b":2}', number: 3 },
    ]);
  }
});

test('an unfinished last line over the cap is reported at the end; text chunks work too', async () => {
  const splitter = new LineSplitter(10);
  assert.deepEqual(splitter.push('{"a":1}\n{"b":'), [{ line: '{"a":1}', number: 1 }]);
  assert.deepEqual(splitter.push('"0123456789"'), []);
  assert.deepEqual(splitter.end(), [{ tooLong: 17, head: '{"b":"0123456789"', number: 2 }]);
});

test('a line exactly at the cap passes; the cap comes from AGENTPIPE_MAX_INPUT_LINE', async () => {
  assert.deepEqual(await collect(chunks('0123456789\n'), 10), [{ line: '0123456789', number: 1 }]);
  assert.equal(maxLineFromEnv({ AGENTPIPE_MAX_INPUT_LINE: '1000' }), 1000);
  assert.equal(maxLineFromEnv({}), 64 * 1024 * 1024);
});

test('frameLines: the non-blank lines of a WebSocket frame, whatever form ws gives it in', () => {
  const text = '{"a":1}\r\n\n  \n{"b":"é"}\n{"c":3}';
  const bytes = Buffer.from(text);
  const expected = ['{"a":1}', '{"b":"é"}', '{"c":3}'];
  assert.deepEqual(frameLines(text), expected);
  assert.deepEqual(frameLines(bytes), expected);
  assert.deepEqual(frameLines(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)), expected);
  // Fragments cut inside a character and inside a line.
  const cut = text.indexOf('é') + 1;
  assert.deepEqual(frameLines([bytes.subarray(0, 3), bytes.subarray(3, cut), bytes.subarray(cut)]), expected);
  assert.deepEqual(frameLines(''), []);
});
