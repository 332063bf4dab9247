/**
 * An attacker row for the sweep of temp folders killed processes left (src/sandbox/temp-sweep.ts): a command still
 * running swaps a folder inside a dead owner's folder for a link while the sweep removes it. A removal that names
 * entries by path (rimraf, or a remove_all of a C++ library without openat) would then list and unlink what the link
 * leads to. The race is played many rounds by a process flipping the folder as fast as it can; the user's files must
 * all stay, whatever the interleaving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sweepLeftFolders } from '../../src/sandbox/temp-sweep.ts';
import { tempDir } from '../helpers/workspace.ts';

const namespace = /(\d+)/.exec(readlinkSync('/proc/self/ns/pid'))![1]!;
const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replace(/-/g, '').slice(0, 12);
/** A pid above the kernel's limit (2^22): no process has it. */
const DEAD = 99_999_999;

/** A process that swaps `sub` for a link to `outside` and back, as fast as it can, until it is killed. */
const FLIPPER = `
const fs = require('node:fs');
const [sub, parked, outside] = process.argv.slice(1);
fs.writeSync(1, 'flipping');
for (;;) {
  try { fs.renameSync(sub, parked); } catch {}
  try { fs.symlinkSync(outside, sub); } catch {}
  try { fs.unlinkSync(sub); } catch {}
  try { fs.renameSync(parked, sub); } catch {}
}`;

test("a folder in a dead owner's folder swapped for a link while the sweep runs: what the link leads to stays", async () => {
  // A sandboxed command still running (the temp root writable to it: allowWrite, a working folder holding it) swaps a
  // folder it made for a link to the user's files, as the sweep goes through it.
  const root = tempDir();
  const outside = path.join(root, 'outside');
  mkdirSync(outside);
  const files = Array.from({ length: 100 }, (_, i) => `f${i}`);
  for (const name of files) writeFileSync(path.join(outside, name), 'mine\n');
  const tmp = path.join(root, 'tmp');
  mkdirSync(tmp);
  for (let round = 0; round < 20; round++) {
    const dead = path.join(
      tmp,
      `agentpipe-sbx-${boot}-${namespace}-${DEAD}-12345-race${String(round).padStart(2, '0')}`,
    );
    mkdirSync(path.join(dead, 'sub'), { recursive: true });
    for (const name of files) writeFileSync(path.join(dead, 'sub', name), 'left\n');
    const args = [path.join(dead, 'sub'), path.join(dead, 'parked'), outside];
    const flipper = spawn(process.execPath, ['-e', FLIPPER, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await once(flipper.stdout, 'data');
      sweepLeftFolders(tmp);
    } finally {
      flipper.kill('SIGKILL');
      await once(flipper, 'close');
    }
  }
  assert.deepEqual(readdirSync(outside).sort(), [...files].sort());
});
