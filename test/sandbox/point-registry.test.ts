/**
 * Attacker's rows against the mount-point registry (points.ts): it lives in the user's own home as the
 * password database names it (`~/.cache/agentpipe/mounts-<host>`), whatever TMPDIR, HOME or AGENTPIPE_HOME
 * say, so a name planted in a shared temp folder is no matter, and a folder the sandbox may write that
 * holds the registry does not open it. Before, a command could list it and write there: drop another
 * run's markers (its point removed while mounted, so that run's command can create `.claude/`), plant
 * markers of pid 1 (points never removed) or hold a lock (each run blocked 30 s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startTimeOf } from '../../src/process/alive.ts';

const registry = path.join(os.userInfo().homedir, '.cache', 'agentpipe', `mounts-${os.hostname()}`);

/** One Bash call in bypassPermissions with `settings`, a temp folder `tmp` and a home of its own. */
async function once(command: string, settings: object, prepare = (_tmp: string) => {}) {
  const root = tempDir();
  const [tmp, work, home] = ['tmp', 'work', 'home'].map((name) => path.join(root, name));
  for (const dir of [tmp, work, home]) mkdirSync(dir);
  prepare(tmp);
  const script = writeScript(root, [{ tool_calls: [{ name: 'Bash', input: { command } }] }, { text: 'done' }]);
  const args = ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'];
  const run = await runCli([...args, '--settings', JSON.stringify(settings)], {
    cwd: work,
    env: { HOME: home, TMPDIR: tmp, AGENTPIPE_HOME: path.join(home, '.agentpipe') },
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.stringify(parseLines(run.stdout).find((m) => m.type === 'user')!.message.content);
  return { result, tmp, work };
}

test('a writable folder holding the mount-point registry: the registry stays out of reach', async () => {
  const parent = path.dirname(registry);
  const command = `ls ${registry} | wc -l; mkdir ${registry}/planted && echo PLANTED; echo ok > made.txt`;
  const { result, work } = await once(command, { sandbox: { filesystem: { allowWrite: [parent] } } });
  assert.match(result, /"0\\n.*Read-only file system/, 'the registry looks empty and cannot be written');
  assert.doesNotMatch(result, /PLANTED/);
  assert.equal(existsSync(path.join(registry, 'planted')), false);
  assert.ok(existsSync(path.join(work, 'made.txt')), 'the command ran');
});

test("a registry name planted in the temp folder (another user's, shared /tmp) is no matter", async () => {
  let planted = '';
  // What another user could make first in a shared /tmp: the old registry's name, open to all (the run failed closed).
  const { result, work } = await once('echo ok > made.txt && ls -A', { sandbox: { enabled: true } }, (tmp) => {
    planted = path.join(tmp, `agentpipe-mounts-${process.getuid?.() ?? 0}`);
    mkdirSync(planted, { mode: 0o777 });
  });
  assert.match(result, /\.claude/, 'the protected folders got their points');
  assert.ok(existsSync(path.join(work, 'made.txt')));
  assert.deepEqual(readdirSync(planted), [], 'nothing written to the planted folder');
  assert.deepEqual(readdirSync(work), ['made.txt'], 'the run gave its points back');
});

test('claims of processes killed with SIGKILL are reaped at the next start: a dead pid, a pid used again', async () => {
  const gone = spawnSync('true').pid!;
  const root = tempDir();
  const plant = (name: string, marker: string) => {
    const point = path.join(root, name);
    mkdirSync(point);
    mkdirSync(registry, { recursive: true, mode: 0o700 });
    const file = path.join(registry, marker);
    writeFileSync(file, JSON.stringify([point]), { mode: 0o600 });
    return { point, file };
  };
  const dead = plant('dead', `${gone}-${startTimeOf(process.pid)}`);
  // This test's own pid, started at another time: the pid of a process that died, used again.
  const reused = plant('reused', `${process.pid}-1`);
  const live = plant('live', `${process.pid}-${startTimeOf(process.pid)}`);
  try {
    await once('echo ok', { sandbox: { enabled: true } });
    for (const { point, file } of [dead, reused]) {
      assert.equal(existsSync(file), false, `${file}: reaped`);
      assert.equal(existsSync(point), false, `${point}: the point it left removed`);
    }
    assert.ok(existsSync(live.file) && existsSync(live.point), 'a live claim is kept');
  } finally {
    for (const { file } of [dead, reused, live]) rmSync(file, { force: true });
  }
});

test("an earlier version's live claim (the registry of a folder per point) keeps its point; a dead one does not", async () => {
  const { legacyPointFolder } = await import('../../src/sandbox/legacy-points.ts');
  const home = os.userInfo().homedir;
  const planted: string[] = [];
  const { work } = await once('echo ok > made.txt', { sandbox: { enabled: true } }, (tmp) => {
    const work = path.join(path.dirname(tmp), 'work');
    const claim = (name: string, marker: string) => {
      const dir = legacyPointFolder(path.join(work, name), home);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dir, marker), path.join(work, name), { mode: 0o600 });
      planted.push(dir);
    };
    // What a process of the earlier version running a command in this folder now holds.
    claim('.claude', `${process.pid}-${startTimeOf(process.pid)}-1`);
    claim('.vscode', `${spawnSync('true').pid!}-1-1`);
  });
  try {
    assert.ok(existsSync(path.join(work, 'made.txt')), 'the command ran');
    assert.ok(existsSync(path.join(work, '.claude')), 'kept: the earlier version has it mounted');
    assert.equal(existsSync(path.join(work, '.vscode')), false, 'the dead claim keeps nothing');
  } finally {
    for (const dir of planted) rmSync(dir, { recursive: true, force: true });
  }
});
