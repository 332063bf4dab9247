/**
 * Attacker rows: Read reads only the file its call was judged on. The permission check judges the real location
 * recorded before it (judged-path.ts); a background job of the model's that swaps a folder on the path for a link
 * after the check would otherwise have Read show a file the check never saw (a key outside the working folder).
 * Read checks the file it opened (its descriptor's path), so no swap between its own steps slips through either.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readTool } from '../../src/tools/builtin/read.ts';
import { judgeTarget } from '../../src/tools/judged-path.ts';
import { ToolState } from '../../src/tools/state.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { tempDir } from '../helpers/workspace.ts';

/** `work/d` a link to `work/in` (holding f.txt, and pic.png); `outside/` holds the same names with a secret. */
function layout(): { work: string; outside: string; link: string } {
  const root = tempDir();
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  for (const dir of [path.join(work, 'in'), outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(work, 'in', 'f.txt'), 'mine\n');
  writeFileSync(path.join(work, 'in', 'pic.png'), 'PNG-MINE');
  writeFileSync(path.join(outside, 'f.txt'), 'SECRET-KEY\n');
  writeFileSync(path.join(outside, 'pic.png'), 'SECRET-PNG');
  const link = path.join(work, 'd');
  symlinkSync(path.join(work, 'in'), link);
  return { work, outside, link };
}

const context = (cwd: string, judgedPath: string | undefined): ToolContext => ({
  cwd,
  signal: new AbortController().signal,
  sessionId: 's',
  toolUseId: 't',
  state: new ToolState(),
  ...(judgedPath !== undefined ? { judgedPath } : {}),
});

for (const name of ['f.txt', 'pic.png']) {
  test(`a folder swapped for a link after the check: Read of ${name} reads nothing`, async () => {
    const { work, outside, link } = layout();
    const input = { file_path: `d/${name}` };
    const judged = judgeTarget(readTool, input, work);
    assert.equal(judged?.real, path.join(work, 'in', name));
    symlinkSync(outside, `${link}.new`);
    renameSync(`${link}.new`, link);
    const result = await readTool.call(input, context(work, judged?.real));
    const said = JSON.stringify(result);
    assert.equal(result.isError, true, said);
    assert.match(said, /read refused: it now leads to .*outside/);
    assert.doesNotMatch(said, /SECRET|U0VDUkVU/);
  });
}

test('the file the call was judged on is read as before, through the link', async () => {
  const { work } = layout();
  const input = { file_path: 'd/f.txt' };
  const judged = judgeTarget(readTool, input, work);
  const result = await readTool.call(input, context(work, judged?.real));
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.equal(result.content, '1\tmine\n2\t');
});

test('the file itself swapped for a link after the check: Read reads nothing', async () => {
  const { work, outside } = layout();
  const file = path.join(work, 'in', 'f.txt');
  const input = { file_path: 'in/f.txt' };
  const judged = judgeTarget(readTool, input, work);
  symlinkSync(path.join(outside, 'f.txt'), `${file}.new`);
  renameSync(`${file}.new`, file);
  const result = await readTool.call(input, context(work, judged?.real));
  const said = JSON.stringify(result);
  assert.equal(result.isError, true, said);
  assert.doesNotMatch(said, /SECRET/);
});
