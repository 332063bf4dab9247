/**
 * One writer per session: a second process resuming a session that is running is refused (or
 * forks with --fork-session); a lock left by a dead process is taken over.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseLines, runCli } from '../helpers/cli.ts';
import { StreamDriver } from '../helpers/stream-driver.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('a second --resume of a running session is refused with a clear message; --fork-session goes ahead; stale locks are taken over', async () => {
  const home = tempDir();
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }]);
  const env = { AGENTPIPE_HOME: home };
  const first = await runCli(
    ['-p', 'start', '--model', 'scripted', '--script', script, '--output-format', 'stream-json', '--verbose'],
    { cwd: dir, env },
  );
  const id = parseLines(first.stdout)[0]!.session_id as string;

  // The first writer resumes it and stays (its input is open).
  process.env.AGENTPIPE_HOME = home;
  const holder = new StreamDriver(['--model', 'scripted', '--script', script, '--resume', id], dir);
  await holder.prompt('hold');
  const second = await runCli(['-p', 'again', '--model', 'scripted', '--script', script, '--resume', id], {
    cwd: dir,
    env,
  });
  assert.equal(second.code, 1);
  assert.match(second.stderr, new RegExp(`session ${id} is in use by process \\d+ .*--fork-session`));
  const fork = await runCli(
    ['-p', 'fork', '--model', 'scripted', '--script', script, '--resume', id, '--fork-session'],
    { cwd: dir, env },
  );
  assert.equal(fork.code, 0, fork.stderr);
  assert.equal(await holder.end(), 0);

  // Released at the end: a resume works again. A lock left by a dead process does not block.
  const [project] = readdirSync(path.join(home, 'projects'));
  const lock = path.join(home, 'projects', project!, `${id}.jsonl.lock`);
  writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 1234, host: os.hostname(), since: 'long ago' }));
  const after = await runCli(['-p', 'after', '--model', 'scripted', '--script', script, '--resume', id], {
    cwd: dir,
    env,
  });
  assert.equal(after.code, 0, after.stderr);
  assert.ok(!readdirSync(path.dirname(lock)).some((f) => f.endsWith('.lock')), 'no lock left behind');
});
