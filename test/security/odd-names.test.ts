/**
 * Attacker rows on odd names and odd files at the file tools' walls: a file name holding a newline must not pass one
 * file's lines off as another's (Grep's Read deny filter goes by the name), and Read's judged check
 * (`readRegularFile(…, judged)`, tools/opened-path.ts) must refuse FIFOs, devices, a file replaced after the check, a
 * path longer than the system takes, and read a judged file whose name holds a newline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { grepTool } from '../../src/tools/builtin/grep.ts';
import { readTool } from '../../src/tools/builtin/read.ts';
import { readRegularFile } from '../../src/tools/regular-file.ts';
import { ToolState } from '../../src/tools/state.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { tempDir } from '../helpers/workspace.ts';

/** A tool context in `cwd`; `denied` plays a `Read(./secret/**)` deny rule. */
const context = (cwd: string, judgedPath?: string): ToolContext => ({
  cwd,
  signal: new AbortController().signal,
  sessionId: 's',
  toolUseId: 't',
  state: new ToolState(),
  readDenied: (file) => (file.startsWith(path.join(cwd, 'secret') + path.sep) ? 'Read(./secret/**)' : undefined),
  ...(judgedPath !== undefined ? { judgedPath } : {}),
});

const text = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

for (const output_mode of ['content', 'count'] as const) {
  test(`Grep (${output_mode}): a denied file whose name holds a newline is not shown as the file after it`, async () => {
    const cwd = realpathSync(tempDir());
    mkdirSync(path.join(cwd, 'secret'));
    writeFileSync(path.join(cwd, 'secret', 'key\nshown.txt'), 'TOKEN=hunter2\n');
    writeFileSync(path.join(cwd, 'open.txt'), 'TOKEN=public\n');
    const result = await grepTool.call({ pattern: 'TOKEN', output_mode }, context(cwd));
    assert.doesNotMatch(text(result.content), /hunter2|shown\.txt/);
    assert.match(text(result.content), /open\.txt/);
  });
}

test('held: a file whose name holds a newline is found under its whole name', async () => {
  const cwd = realpathSync(tempDir());
  writeFileSync(path.join(cwd, 'two\nlines.txt'), 'needle\n');
  const result = await grepTool.call({ pattern: 'needle', output_mode: 'content' }, context(cwd));
  assert.equal(result.content, 'two\nlines.txt:1:needle');
});

test('Read refuses a FIFO and a device, without waiting for a writer', async () => {
  const cwd = realpathSync(tempDir());
  execFileSync('mkfifo', [path.join(cwd, 'pipe')]);
  const fifo = await readTool.call({ file_path: 'pipe' }, context(cwd, path.join(cwd, 'pipe')));
  assert.match(text(fifo.content), /FIFO/);
  const device = await readTool.call({ file_path: '/dev/zero' }, context(cwd, '/dev/zero'));
  assert.match(text(device.content), /character device/);
  // Swapped for a FIFO after the tool looked: the opened descriptor is checked, not the path.
  await assert.rejects(readRegularFile(path.join(cwd, 'pipe'), 1024, undefined, path.join(cwd, 'pipe')), /FIFO/);
});

test('Read of a file replaced at the judged path after the check reads the file there now (the place was judged)', async () => {
  const cwd = realpathSync(tempDir());
  const file = path.join(cwd, 'f.txt');
  writeFileSync(file, 'first\n');
  // The judged place holds another file now: it is where the call was judged to read, so it is read.
  writeFileSync(path.join(cwd, 'g.txt'), 'second\n');
  renameSync(path.join(cwd, 'g.txt'), file);
  assert.equal((await readRegularFile(file, 1024, undefined, file)).toString(), 'second\n');
});

test('Read of a path longer than the system takes fails cleanly, and a name with a newline is read', async () => {
  const cwd = realpathSync(tempDir());
  const long = path.join(cwd, ...Array.from({ length: 40 }, () => 'x'.repeat(200)), 'f.txt');
  const refused = await readTool.call({ file_path: long }, context(cwd, long));
  assert.equal(refused.isError, true);
  assert.match(text(refused.content), /does not exist/);
  writeFileSync(path.join(cwd, 'a\nb.txt'), 'odd\n');
  const odd = await readTool.call({ file_path: 'a\nb.txt' }, context(cwd, path.join(cwd, 'a\nb.txt')));
  assert.equal(odd.content, '1\todd\n2\t');
});
