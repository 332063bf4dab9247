/**
 * The sweep of temp folders killed processes left (src/sandbox/temp-sweep.ts): only a real folder of this user, named
 * in this pid namespace for a process that no longer runs, goes; links are removed, never followed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startTimeOf } from '../../src/process/alive.ts';
import { removeTempFolder, sweepLeftFolders, tempFolderPrefix } from '../../src/sandbox/temp-sweep.ts';
import { tempDir } from '../helpers/workspace.ts';

const namespace = /(\d+)/.exec(readlinkSync('/proc/self/ns/pid'))![1]!;
/** This boot, as the names carry it (the boot id's first 12 hex digits). */
const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replace(/-/g, '').slice(0, 12);
/** A temp folder's name for an owner in this boot and pid namespace. */
const named = (pid: number | string, started: number | string, tail: string, kind = '') =>
  `agentpipe-sbx-${kind}${boot}-${namespace}-${pid}-${started}-${tail}`;
/** A pid above the kernel's limit (2^22): no process has it. */
const DEAD = 99_999_999;

test("a dead owner's folder goes, with what its commands left; links in it are not followed", () => {
  const root = tempDir();
  const outside = path.join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'keep.txt'), 'mine\n');
  const tmp = path.join(root, 'tmp');
  mkdirSync(tmp);
  const dead = path.join(tmp, named(DEAD, 12345, 'aB3dE9'));
  const deadParts = path.join(tmp, named(DEAD, 12345, 'Zz09aa', 'parts-'));
  for (const dir of [dead, deadParts]) mkdirSync(path.join(dir, 'sub'), { recursive: true });
  symlinkSync(outside, path.join(dead, 'link'));
  symlinkSync(outside, path.join(dead, 'sub', 'link'));
  writeFileSync(path.join(dead, 'sub', 'left.txt'), 'x');
  const mine = path.join(tmp, `${tempFolderPrefix()}Q1w2e3`);
  const minePid = named(process.pid, startTimeOf(process.pid)!, 'r4t5y6');
  mkdirSync(mine);
  mkdirSync(path.join(tmp, minePid));
  const kept = [
    // another pid namespace: its pid means another process
    `agentpipe-sbx-${boot}-1${namespace}-${DEAD}-12345-aaaaaa`,
    // another boot of the kernel, or another machine's (a temp root shared over NFS): the same namespace number
    `agentpipe-sbx-${boot[0] === 'a' ? 'b' : 'a'}${boot.slice(1)}-${namespace}-${DEAD}-12345-aaaaaa`,
    // an earlier version's name, with no boot in it
    `agentpipe-sbx-${namespace}-${DEAD}-12345-aaaaaa`,
    // an earlier version's folder: no owner in its name
    'agentpipe-sbx-AbC123',
    // not the sandbox's
    `other-${namespace}-${DEAD}-12345-aaaaaa`,
    // a pid that runs, started then: this process
    path.basename(mine),
    minePid,
  ];
  for (const name of kept.slice(0, 5)) mkdirSync(path.join(tmp, name));
  // A link named as a dead owner's folder, to a folder that must stay.
  const linkName = named(DEAD, 12345, 'LiNk00');
  symlinkSync(outside, path.join(tmp, linkName));

  assert.deepEqual(sweepLeftFolders(tmp).sort(), [dead, deadParts].sort());
  assert.deepEqual(readdirSync(tmp).sort(), [...kept, linkName].sort());
  assert.equal(readFileSync(path.join(outside, 'keep.txt'), 'utf8'), 'mine\n');
  assert.deepEqual(readdirSync(outside), ['keep.txt']);
});

test('the same pid started at another time is another process: its folder goes', () => {
  const tmp = tempDir();
  const name = named(process.pid, `1${startTimeOf(process.pid)}`, 'aaaaaa');
  mkdirSync(path.join(tmp, name));
  assert.deepEqual(sweepLeftFolders(tmp), [path.join(tmp, name)]);
});

test('a temp root that cannot be read sweeps nothing', () => {
  assert.deepEqual(sweepLeftFolders(path.join(tempDir(), 'missing')), []);
});

test('a tree deeper than a pass of the sweep goes, its depth moved up, not held in descriptors or the stack', () => {
  const tmp = tempDir();
  const dead = path.join(tmp, named(DEAD, 12345, 'deep00'));
  mkdirSync(path.join(dead, ...Array.from({ length: 300 }, () => 'd')), { recursive: true });
  assert.deepEqual(sweepLeftFolders(tmp), [dead]);
  assert.equal(existsSync(dead), false);
});

test('a tree deeper than one pass goes (moved up a pass at a time), its links unfollowed', () => {
  const root = tempDir();
  const outside = path.join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'keep.txt'), 'mine\n');
  const folder = path.join(root, 'left');
  const deepest = path.join(folder, ...Array.from({ length: 1000 }, () => 'a'));
  mkdirSync(deepest, { recursive: true });
  symlinkSync(outside, path.join(deepest, 'link'));
  writeFileSync(path.join(path.dirname(deepest), 'f'), 'x');
  assert.equal(removeTempFolder(folder), true);
  assert.equal(existsSync(folder), false);
  assert.deepEqual(readdirSync(outside), ['keep.txt']);
});
