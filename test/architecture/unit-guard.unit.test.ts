/**
 * `npm run test:unit` is the tests that start no child process: files named `*.unit.test.ts`.
 * test/helpers/unit-guard.ts (preloaded by `npm test` and `npm run test:unit`) makes every
 * child_process starter throw inside such a file; this test fails when the guard is not loaded,
 * and when a way to start a process slipped past it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import childProcess, { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const GUARDED = /is a unit test \(\.unit\.test\.ts\) but called child_process\.\w+\("true"\)/;

test('a unit test cannot start a child process, however it imports child_process', () => {
  assert.throws(() => spawn('true'), GUARDED);
  assert.throws(() => spawnSync('true'), GUARDED);
  assert.throws(() => execFile('true'), GUARDED);
  assert.throws(() => execFileSync('true'), GUARDED);
  assert.throws(() => childProcess.exec('true'), GUARDED);
  assert.throws(() => childProcess.execSync('true'), GUARDED);
  assert.throws(() => childProcess.fork('true'), GUARDED);
  const required = createRequire(import.meta.url)('node:child_process') as typeof childProcess;
  assert.throws(() => required.spawn('true'), GUARDED);
  assert.throws(() => process.getBuiltinModule('node:child_process').spawn('true'), GUARDED);
});
