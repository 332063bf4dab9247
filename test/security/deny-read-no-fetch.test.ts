/**
 * Attacker row: deny-read.ts asks git, outside the sandbox, whether a Read-denied file was ever committed
 * (`git log --all -- <file>`). In a partial clone that walk fetches the trees it lacks from the promisor remote, and a
 * repository's config can name a remote that runs a program (`ext::sh -c …` with `protocol.ext.allow=always`): git
 * would run it, unconfined. The question is asked with every transport refused (GIT_ALLOW_PROTOCOL), so nothing
 * is fetched or run; a store git cannot answer for is hidden, as for any repository git cannot read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { trackedObjectStores } from '../../src/sandbox/deny-read.ts';
import { tempDir } from '../helpers/workspace.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, stdio: 'pipe' });

test('a partial clone whose promisor remote runs a program: asking about a denied file fetches and runs nothing', async () => {
  const root = tempDir();
  const source = path.join(root, 'source');
  mkdirSync(path.join(source, 'secret'), { recursive: true });
  writeFileSync(path.join(source, 'secret/key.txt'), 'hunter2\n');
  writeFileSync(path.join(source, 'a.txt'), 'plain\n');
  git(source, 'init', '-q');
  git(source, 'add', '-A');
  git(source, 'commit', '-q', '-m', 'first');
  unlinkSync(path.join(source, 'secret/key.txt'));
  git(source, 'commit', '-q', '-am', 'untracked since');
  git(source, 'config', 'uploadpack.allowFilter', 'true');
  git(root, 'clone', '-q', '--no-local', '--filter=tree:0', `file://${source}`, 'work');
  const work = path.join(root, 'work');
  const ran = path.join(root, 'RAN');
  git(work, 'config', 'remote.origin.url', `ext::sh -c touch% ${ran}`);
  git(work, 'config', 'protocol.ext.allow', 'always');

  const stores = await trackedObjectStores([path.join(work, 'secret/key.txt')], { PATH: process.env.PATH });
  assert.equal(existsSync(ran), false, "the promisor remote's program ran");
  // git could not say without the missing trees: the store is hidden.
  assert.deepEqual(stores, [path.join(work, '.git/objects')]);
});
