/**
 * Attacker rows: Write (and the ACP client's fs write) makes a file's missing folders. A folder on the path swapped for
 * a link after the last check and before the folders are made (a background job of the model's) must not have them
 * made outside the working folders, not even empty: the creation walks down from the existing folder the call was
 * judged to write under, opened and checked, one level at a time through the opened parent, never through a link.
 * The rows play the swap deterministically: the folders were judged, then the link is swapped in, then they are made.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { makeJudgedFolder } from '../../src/tools/make-folders.ts';

async function inRoot(body: (work: string, outside: string) => Promise<void>): Promise<void> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'make-folders-')));
  try {
    const work = path.join(root, 'work');
    const outside = path.join(root, 'outside');
    for (const dir of [path.join(work, 'a'), outside]) mkdirSync(dir, { recursive: true });
    await body(work, outside);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('the folders are made where judged, and an existing one is fine', async () => {
  await inRoot(async (work) => {
    await makeJudgedFolder(path.join(work, 'a/b/c'), 'Write');
    assert.ok(existsSync(path.join(work, 'a/b/c')));
    await makeJudgedFolder(path.join(work, 'a/b/c'), 'Write');
    await makeJudgedFolder(work, 'Write');
  });
});

test('an existing folder on the path swapped for a link out: nothing is made outside', async () => {
  await inRoot(async (work, outside) => {
    const judged = path.join(work, 'a/b/c');
    rmSync(path.join(work, 'a'), { recursive: true });
    symlinkSync(outside, path.join(work, 'a'));
    await assert.rejects(makeJudgedFolder(judged, 'Write'), /Write refused/);
    assert.deepEqual(readdirSync(outside), []);
  });
});

test('a missing folder on the path made a link out: nothing is made outside', async () => {
  await inRoot(async (work, outside) => {
    const judged = path.join(work, 'a/b/c/d');
    symlinkSync(outside, path.join(work, 'a/b'));
    await assert.rejects(makeJudgedFolder(judged, 'Write'), /Write refused/);
    assert.deepEqual(readdirSync(outside), []);
  });
});

test('the working folder itself swapped for a link: nothing is made outside', async () => {
  await inRoot(async (work, outside) => {
    const judged = path.join(work, 'a/b');
    rmSync(work, { recursive: true });
    symlinkSync(outside, work);
    await assert.rejects(makeJudgedFolder(judged, 'write'), /write refused/);
    assert.deepEqual(readdirSync(outside), []);
  });
});
