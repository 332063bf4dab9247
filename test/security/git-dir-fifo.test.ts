/**
 * Attacker row: a sandboxed command makes `sub/.git` a FIFO; the next command's start reads it outside the sandbox
 * (git-dir.ts, for the nested repository's git folder). A blocking open froze agentpipe for good (its one thread in
 * open(2), SIGTERM unanswered). The read runs in a child with a kill timeout, so a regression fails instead of hanging.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/workspace.ts';

test('gitDirOf on a `.git` that is a FIFO answers at once (no git folder)', () => {
  const root = tempDir();
  mkdirSync(path.join(root, 'sub'));
  execFileSync('mkfifo', [path.join(root, 'sub', '.git')]);
  const module = new URL('../../src/sandbox/git-dir.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(module)}).then((m) => console.log(String(m.gitDirOf(process.argv[1]))))`;
  const run = spawnSync(process.execPath, ['-e', code, path.join(root, 'sub')], {
    encoding: 'utf8',
    timeout: 30_000,
    killSignal: 'SIGKILL',
  });
  assert.equal(run.signal, null, 'reading the FIFO blocked: agentpipe would freeze');
  assert.equal(run.stdout.trim(), 'undefined', run.stderr);
});
