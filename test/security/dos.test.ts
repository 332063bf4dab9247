/**
 * Tools that could block the process: Grep is ripgrep in a killable process group (linear-time
 * regexes), Read refuses devices, FIFOs and sockets. Through the real CLI over stream-json.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

type Line = Record<string, any>;
const resultOf = (lines: Line[], id: string) =>
  lines
    .flatMap((l) => (l.type === 'user' && Array.isArray(l.message.content) ? l.message.content : []))
    .find((b: Line) => b.tool_use_id === id);

test('Grep with a catastrophic-backtracking pattern answers at once (linear-time engine)', async () => {
  const dir = tempDir({ 'long.txt': `${'a'.repeat(5000)}!\n` });
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Grep', id: 'toolu_redos', input: { pattern: '^(a+)+$', output_mode: 'content' } }] },
    { text: 'done' },
  ]);
  const driver = new StreamDriver(['--model', 'scripted', '--script', script], dir);
  const started = Date.now();
  const result = await driver.prompt('search');
  assert.equal(result.subtype, 'success');
  assert.ok(Date.now() - started < 10_000);
  assert.match(resultOf(driver.lines, 'toolu_redos').content, /No matches found/);
  await driver.end();
});

test('a Grep blocked on a FIFO and a Read of a FIFO: interrupt ends the prompt at once; Read refuses it', async () => {
  const dir = tempDir();
  execFileSync('mkfifo', [path.join(dir, 'pipe')]);
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Read', id: 'toolu_fifo', input: { file_path: 'pipe' } }] },
    { tool_calls: [{ name: 'Grep', id: 'toolu_grep', input: { pattern: 'x', path: 'pipe' } }] },
    { text: 'never' },
  ]);
  const driver = new StreamDriver(['--model', 'scripted', '--script', script], dir);
  const from = driver.lines.length;
  driver.send({ type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null, session_id: '' });
  // Grep is now reading the FIFO, which never gets a writer.
  await driver.waitFor(
    (l) => l.type === 'assistant' && l.message.content.some((b: Line) => b.id === 'toolu_grep'),
    from,
  );
  const asked = Date.now();
  assert.equal((await driver.control({ subtype: 'interrupt' })).subtype, 'success');
  const result = await driver.waitFor((l) => l.type === 'result', from);
  assert.ok(Date.now() - asked < 1500, `the interrupt took ${Date.now() - asked} ms`);
  assert.equal(result.subtype, 'error_during_execution');
  assert.match(resultOf(driver.lines, 'toolu_fifo').content, /FIFO/);
  assert.equal(await driver.end(), 1);
});

test('Read refuses /dev/zero and /dev/stdin; the next protocol line still reaches the session', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'ok.txt'), 'fine\n');
  const script = writeScript(dir, [
    {
      tool_calls: [
        { name: 'Read', id: 'toolu_zero', input: { file_path: '/dev/zero' } },
        { name: 'Read', id: 'toolu_stdin', input: { file_path: '/dev/stdin' } },
      ],
    },
    { text: 'first done' },
    { text: 'second done' },
  ]);
  // Allowed by a rule: /dev is outside the working folder, where a read otherwise asks first.
  const driver = new StreamDriver(['--model', 'scripted', '--script', script, '--allowedTools', 'Read'], dir);
  const first = await driver.prompt('read devices');
  assert.equal(first.result, 'first done');
  assert.match(resultOf(driver.lines, 'toolu_zero').content, /character device/);
  assert.match(resultOf(driver.lines, 'toolu_stdin').content, /only regular files can be read/);
  const second = await driver.prompt('still there?');
  assert.equal(second.result, 'second done');
  assert.equal(await driver.end(), 0);
});
