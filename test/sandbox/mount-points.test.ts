/**
 * A protected folder missing from a writable folder gets a mount point for the run (bubblewrap
 * makes it) that is removed after the run. Runs at once in one folder (a cluster worker's sessions,
 * the process's shared temp folder) share it: it stays until the last of them ends, and a run that
 * starts while another's point is there mounts it as a point, not as a folder of the user's. Before,
 * the first run to end removed it while another's bubblewrap was mounting it ("Can't find source
 * path .../.agentpipe"), seen in the cluster chaos test with hundreds of commands at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { mountArgs, releaseMountPoints, type MountPlan } from '../../src/sandbox/mounts.ts';
import { tempDir } from '../helpers/workspace.ts';

test('a mount point shared by runs at once stays until the last of them ends', () => {
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

  const first = mountArgs(plan);
  assert.ok(bindsEmptyOn(first.args));
  assert.ok(first.createdPoints.includes(point));
  mkdirSync(point); // what the first run's bubblewrap does

  const second = mountArgs(plan);
  assert.ok(bindsEmptyOn(second.args), 'the point is mounted as a point, not bound as a folder that stays');
  assert.ok(second.createdPoints.includes(point));

  releaseMountPoints(first.createdPoints);
  assert.ok(existsSync(point), 'kept while the second run may still mount it');
  releaseMountPoints(second.createdPoints);
  assert.equal(existsSync(point), false, 'removed after the last run');

  // A folder of the user's (not a point of ours) is bound as it is and never removed.
  mkdirSync(point);
  const third = mountArgs(plan);
  assert.ok(!bindsEmptyOn(third.args));
  assert.ok(!third.createdPoints.includes(point));
  releaseMountPoints(third.createdPoints);
  assert.ok(existsSync(point));
});
