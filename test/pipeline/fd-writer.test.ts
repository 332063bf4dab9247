/**
 * FdWriter on real FIFOs: every byte arrives in order (multi-byte characters included), write()
 * waits while the reader is behind, a non-blocking descriptor that would block hands the rest
 * over to the fallback stream without losing or reordering a byte, and a reader that left
 * closes the writer quietly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { FdWriter } from '../../src/pipeline/fd-writer.ts';
import { scratchDir } from '../helpers/temp.ts';

/** A FIFO with its read end open (non-blocking), so a writer can open it. */
function fifo(): { file: string; reader: number } {
  const file = path.join(scratchDir('fd-writer-'), 'out');
  execFileSync('mkfifo', [file]);
  return { file, reader: openSync(file, constants.O_RDONLY | constants.O_NONBLOCK) };
}

/** Reads what the FIFO holds now (non-blocking). */
function readNow(reader: number): Buffer {
  const parts: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    try {
      const n = readSync(reader, buffer);
      if (n === 0) break;
      parts.push(Buffer.from(buffer.subarray(0, n)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
  }
  return Buffer.concat(parts);
}

/** Reads until `bytes` bytes came, yielding to the event loop while the FIFO is empty. */
async function readAll(reader: number, bytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let got = 0;
  while (got < bytes) {
    const chunk = readNow(reader);
    parts.push(chunk);
    got += chunk.length;
    if (chunk.length === 0) await tick();
  }
  return Buffer.concat(parts);
}

const line = (i: number) => `{"i":${i},"text":"deltas — ünïcödé ✓ ${'x'.repeat(i % 50)}"}\n`;

test('lines written in many ticks arrive whole and in order', async () => {
  const { file, reader } = fifo();
  const fd = openSync(file, constants.O_WRONLY);
  const writer = new FdWriter(fd);
  let expected = '';
  const reading = (async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => line(i)).join('');
    return readAll(reader, Buffer.byteLength(lines));
  })();
  for (let i = 0; i < 5000; i++) {
    expected += line(i);
    await writer.write(line(i));
    if (i % 100 === 0) await tick();
  }
  await writer.flush();
  assert.equal((await reading).toString('utf8'), expected);
  assert.equal(writer.closed, false);
  closeSync(fd);
  closeSync(reader);
});

test('write() waits while more than highWaterMark characters are pending, and resumes as the reader reads', async () => {
  const { file, reader } = fifo();
  const fd = openSync(file, constants.O_WRONLY);
  const writer = new FdWriter(fd, undefined, { highWaterMark: 16 * 1024 });
  const chunk = 'y'.repeat(8 * 1024);
  const total = 64;
  let waited = false;
  const writing = (async () => {
    for (let i = 0; i < total; i++) {
      let settled = false;
      const done = writer.write(chunk).then(() => (settled = true));
      await tick();
      if (!settled) waited = true;
      await done;
    }
    await writer.flush();
  })();
  // Nobody reads for a while: the pipe's buffer fills and the writer must hold its caller.
  for (let i = 0; i < 20; i++) await tick();
  assert.ok(waited, 'a writer behind by more than its highWaterMark makes write() wait');
  const read = await readAll(reader, chunk.length * total);
  await writing;
  assert.equal(read.length, chunk.length * total);
  assert.ok(read.every((byte) => byte === 0x79));
  closeSync(fd);
  closeSync(reader);
});

test('a non-blocking descriptor that would block hands the rest to the fallback, bytes in order', async () => {
  const { file, reader } = fifo();
  const fd = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
  const fallback = new PassThrough();
  const caught: Buffer[] = [];
  fallback.on('data', (data: Buffer) => caught.push(data));
  let used = false;
  const writer = new FdWriter(fd, undefined, {
    fallback: () => {
      used = true;
      return fallback;
    },
  });
  // ~1.3 MB with multi-byte characters, far more than a pipe holds: some write must hit EAGAIN,
  // possibly after a partial write that stops inside a character.
  let expected = '';
  for (let i = 0; i < 20_000; i++) {
    expected += line(i);
    await writer.write(line(i));
    if (i % 1000 === 0) await tick();
  }
  await writer.flush();
  assert.ok(used, 'the fallback took over');
  const direct = readNow(reader);
  assert.equal(Buffer.concat([direct, ...caught]).toString('utf8'), expected);
  closeSync(fd);
  closeSync(reader);
});

test('a reader that left (EPIPE) closes the writer quietly; later writes resolve and go nowhere', async () => {
  const { file, reader } = fifo();
  const fd = openSync(file, constants.O_WRONLY);
  const closes: Array<Error | undefined> = [];
  const writer = new FdWriter(fd, (error) => closes.push(error));
  await writer.write('first\n');
  await writer.flush();
  assert.equal(readNow(reader).toString(), 'first\n');
  closeSync(reader);
  await writer.write('into the void\n');
  await writer.flush();
  assert.equal(writer.closed, true);
  assert.deepEqual(closes, [undefined]);
  await writer.write('and more\n');
  await writer.flush();
  assert.deepEqual(closes, [undefined], 'onClose fires once');
  closeSync(fd);
});
