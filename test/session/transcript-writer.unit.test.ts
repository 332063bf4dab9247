/**
 * The transcript's serial writer on node:fs's callback API: lines land in order, a torn last
 * line from a killed writer gets its newline first, and a file that cannot be written is
 * reported once while the session goes on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TranscriptWriter } from '../../src/session/transcript-writer.ts';
import { scratchDir } from '../helpers/temp.ts';

const lines = (file: string) => readFileSync(file, 'utf8');

test('appends lines in order into a new folder, and close() leaves them on disk', async () => {
  const file = path.join(scratchDir('transcript-'), 'a', 'b', 'session.jsonl');
  const logged: string[] = [];
  const writer = new TranscriptWriter(file, (line) => logged.push(line));
  for (let i = 0; i < 50; i++) void writer.append({ i });
  await writer.sync();
  assert.equal(lines(file), Array.from({ length: 50 }, (_, i) => `{"i":${i}}\n`).join(''));
  await writer.append({ last: true });
  await writer.close();
  assert.ok(lines(file).endsWith('{"last":true}\n'));
  assert.deepEqual(logged, []);
});

test('a torn last line is ended before the first new line', async () => {
  const file = path.join(scratchDir('transcript-'), 'torn.jsonl');
  writeFileSync(file, '{"whole":1}\n{"torn":');
  const writer = new TranscriptWriter(file, () => undefined);
  await writer.append({ next: 2 });
  await writer.close();
  assert.equal(lines(file), '{"whole":1}\n{"torn":\n{"next":2}\n');
});

test('an idle writer creates no file', async () => {
  const file = path.join(scratchDir('transcript-'), 'idle.jsonl');
  const writer = new TranscriptWriter(file, () => undefined);
  await writer.close();
  assert.throws(() => readFileSync(file), { code: 'ENOENT' });
});

test('a file that cannot be written is reported once; appends go on resolving', async () => {
  const dir = scratchDir('transcript-');
  writeFileSync(path.join(dir, 'not-a-folder'), '');
  const logged: string[] = [];
  const writer = new TranscriptWriter(path.join(dir, 'not-a-folder', 'session.jsonl'), (line) => logged.push(line));
  for (let i = 0; i < 5; i++) await writer.append({ i });
  await writer.sync();
  await writer.close();
  assert.equal(logged.length, 1);
  assert.match(logged[0]!, /the transcript is off: cannot write .*: .*not-a-folder is a file, not a folder; /);
});

test('append() waits only while more than highWaterMark bytes are pending', async () => {
  const file = path.join(scratchDir('transcript-'), 'bounded.jsonl');
  const writer = new TranscriptWriter(file, () => undefined, 64);
  let waited = 0;
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < 20; i++) {
    let settled = false;
    const done = writer.append({ text: 'x'.repeat(20), i }).then(() => {
      settled = true;
    });
    await Promise.resolve();
    if (!settled) waited++;
    pending.push(done);
  }
  await Promise.all(pending);
  await writer.close();
  assert.ok(waited > 0, 'a writer behind by more than 64 bytes makes appends wait');
  assert.equal(lines(file).split('\n').length - 1, 20);
});
