/**
 * An attacker's row against the mount-point registry ($TMPDIR/agentpipe-points-<uid>, points.ts):
 * a temp folder the sandbox may write (`sandbox.filesystem.allowWrite: ["/tmp"]`, a working folder
 * holding it) must not open the registry. Before, a command could list it and write there: drop
 * another run's markers (its point removed while mounted, so that run's command can create
 * `.claude/`), plant markers of pid 1 (points never removed) or hold a lock (each run blocked 30 s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('a writable temp folder: the mount-point registry in it stays out of reach', async () => {
  const root = tempDir();
  const [tmp, work, home] = ['tmp', 'work', 'home'].map((name) => path.join(root, name));
  for (const dir of [tmp, work, home]) mkdirSync(dir);
  const registry = path.join(tmp, `agentpipe-points-${process.getuid?.() ?? 0}`);
  const command = `ls ${registry} | wc -l; mkdir ${registry}/planted && echo PLANTED; echo ok > made.txt`;
  const script = writeScript(root, [{ tool_calls: [{ name: 'Bash', input: { command } }] }, { text: 'done' }]);
  const settings = { sandbox: { filesystem: { allowWrite: [tmp] } } };
  const run = await runCli(
    [
      '-p',
      'go',
      ...scriptedStreamArgs(script),
      '--permission-mode',
      'bypassPermissions',
      '--settings',
      JSON.stringify(settings),
    ],
    { cwd: work, env: { HOME: home, TMPDIR: tmp, AGENTPIPE_HOME: path.join(home, '.agentpipe') }, timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.stringify(parseLines(run.stdout).find((m) => m.type === 'user')!.message.content);
  assert.match(result, /"0\\n.*Read-only file system/, 'the registry looks empty and cannot be written');
  assert.doesNotMatch(result, /PLANTED/);
  assert.equal(existsSync(path.join(registry, 'planted')), false);
  assert.ok(existsSync(path.join(work, 'made.txt')), 'the command ran');
  assert.deepEqual(readdirSync(registry), [], 'the run gave its points back');
});
