/**
 * Attacker row: a file changed on disk after the model read it must not be overwritten blind (Write, Edit refuse with
 * "File has been modified since read"), also when the change carries an OLDER modification time than the one read:
 * `cp -p` of an older copy, `touch -r`, a tool that restores times, a file replaced by a rename.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('Write and Edit refuse a file replaced since it was read by one with an older modification time', async () => {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  const f = (name: string) => path.join(work, name);
  const { mkdirSync } = await import('node:fs');
  for (const dir of [work, home]) mkdirSync(dir, { recursive: true });
  writeFileSync(f('w.txt'), 'mine\n');
  writeFileSync(f('e.txt'), 'mine\n');
  const replace = (name: string) =>
    `printf 'the user changed this\\n' > ${name}.new && touch -d '2001-01-01' ${name}.new && mv ${name}.new ${name}`;
  const call = (name: string, input: Record<string, unknown>) => ({ tool_calls: [{ name, input }] });
  const script = writeScript(root, [
    call('Read', { file_path: 'w.txt' }),
    call('Read', { file_path: 'e.txt' }),
    call('Bash', { command: `${replace('w.txt')} && ${replace('e.txt')}` }),
    call('Write', { file_path: 'w.txt', content: 'overwritten\n' }),
    call('Edit', { file_path: 'e.txt', old_string: 'the user', new_string: 'nobody' }),
    { text: 'done' },
  ]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd: work,
    env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') },
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content[0]));
  assert.equal(results.length, 5);
  assert.doesNotMatch(results[2]!, /is_error":true/, results[2]);
  assert.equal(readFileSync(f('w.txt'), 'utf8'), 'the user changed this\n', 'Write kept off the changed file');
  assert.equal(readFileSync(f('e.txt'), 'utf8'), 'the user changed this\n', 'Edit kept off the changed file');
  for (const i of [3, 4]) assert.match(results[i]!, /modified since read/, results[i]);
});
