/**
 * A protected folder missing from a writable folder gets a mount point for the run that is removed
 * once no run of any process uses it. Each run claims the point with a marker folder inside it, so
 * the kernel refuses to remove the point while another run (of this process or another) may be
 * mounting it or running under it. Before, one process's release removed a point another process's
 * bubblewrap was mounting ("Can't find source path .../.claude") or had mounted (rmdir in another
 * mount namespace detaches the mount: the running command could then create the folder).
 * test/sandbox/concurrent.test.ts runs processes at once through the real CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mountArgs, releaseMountPoints, type MountPlan } from '../../src/sandbox/mounts.ts';
import { tempDir } from '../helpers/workspace.ts';

function setup() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const emptyDir = path.join(root, 'empty');
  mkdirSync(work);
  mkdirSync(emptyDir);
  const plan: MountPlan = {
    writable: [work],
    denyWrite: [],
    hidden: [],
    allowRead: [],
    credentialStores: false,
    emptyDir,
    homes: [],
  };
  const point = path.join(work, '.agentpipe');
  const bindsEmptyOn = (args: string[]): boolean =>
    args.some((arg, i) => arg === '--ro-bind' && args[i + 1] === emptyDir && args[i + 2] === point);
  return { work, plan, point, bindsEmptyOn };
}

test('a mount point shared by runs at once stays until the last of them ends', () => {
  const { plan, point, bindsEmptyOn } = setup();
  const first = mountArgs(plan);
  assert.ok(bindsEmptyOn(first.args));
  assert.ok(existsSync(point), 'made before bubblewrap starts, with the run claim in it');

  const second = mountArgs(plan);
  assert.ok(bindsEmptyOn(second.args), 'the point is mounted as a point, not bound as a folder that stays');
  assert.equal(readdirSync(point).length, 2, 'one claim per run');

  releaseMountPoints(first.claims);
  assert.ok(existsSync(point), 'kept while the second run may still mount it');
  releaseMountPoints(second.claims);
  assert.equal(existsSync(point), false, 'removed after the last run');
});

test("another process's claim keeps the point; a dead process's claim does not", () => {
  const { plan, point } = setup();
  const run = mountArgs(plan);
  // What another agentpipe process's run leaves while it runs: a claim of a live process (this test's parent).
  const [own] = readdirSync(point);
  const other = own!.replace(/-\d+-\d+$/, `-${process.ppid}-1`);
  mkdirSync(path.join(point, other));
  releaseMountPoints(run.claims);
  assert.deepEqual(readdirSync(point), [other], "the other process's run still has it mounted");

  // That process was killed before it released: its claim is stale, and the next release removes it and the point.
  const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8', input: '' });
  const gone = own!.replace(/-\d+-\d+$/, `-${dead.stdout.trim()}-1`);
  mkdirSync(path.join(point, gone));
  releaseMountPoints(mountArgs(plan).claims);
  assert.deepEqual(readdirSync(point), [other]);

  // Once the other process's run released its claim too, a stale claim alone does not keep the point.
  rmdirSync(path.join(point, other));
  mkdirSync(path.join(point, gone));
  releaseMountPoints(mountArgs(plan).claims);
  assert.equal(existsSync(point), false);
});

test("a folder of the user's is bound as it is, never claimed or removed", () => {
  const { plan, point, bindsEmptyOn } = setup();
  mkdirSync(point);
  writeFileSync(path.join(point, 'settings.json'), '{}');
  const run = mountArgs(plan);
  assert.ok(!bindsEmptyOn(run.args));
  assert.ok(run.args.some((arg, i) => arg === '--ro-bind' && run.args[i + 1] === point && run.args[i + 2] === point));
  assert.ok(!run.claims.some((claim) => claim.startsWith(point + path.sep)), 'not claimed');
  releaseMountPoints(run.claims);
  assert.deepEqual(readdirSync(point), ['settings.json']);
});
