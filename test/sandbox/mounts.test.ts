/**
 * mountArgs on the git folder of a writable folder: bound onto itself (a mount point cannot be
 * moved aside or replaced) when it is writable already, never made writable when a link leads
 * elsewhere; a missing commondir is named for removal after the run.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { mountArgs, releaseMountPoints } from '../../src/sandbox/mounts.ts';
import { tempDir } from '../helpers/workspace.ts';

function plan(writable: string[], emptyDir: string) {
  return { writable, denyWrite: [], hidden: [], allowRead: [], credentialStores: false, emptyDir, homes: [] };
}

/** The `--bind SRC DEST` pairs of an argument list. */
const binds = (args: string[]) => args.flatMap((a, i) => (a === '--bind' ? [`${args[i + 1]} ${args[i + 2]}`] : []));

test('a writable folder: its .git is bound onto itself, its missing commondir removed after the run', () => {
  const root = realpathSync(tempDir());
  const work = path.join(root, 'work');
  mkdirSync(path.join(work, '.git', 'hooks'), { recursive: true });
  const { args, claims, mustStayMissing } = mountArgs(plan([work], path.join(root, 'empty')));
  releaseMountPoints(claims);
  const git = path.join(work, '.git');
  assert.ok(binds(args).includes(`${git} ${git}`), args.join(' '));
  assert.deepEqual(mustStayMissing, [path.join(git, 'commondir')]);
});

test('a .git that is a link to a folder outside the writable ones is not made writable', () => {
  const root = realpathSync(tempDir());
  const work = path.join(root, 'work');
  const elsewhere = path.join(root, 'repos', 'x.git');
  mkdirSync(path.join(elsewhere, 'hooks'), { recursive: true });
  mkdirSync(work);
  symlinkSync(elsewhere, path.join(work, '.git'));
  const { args, claims, mustStayMissing } = mountArgs(plan([work], path.join(root, 'empty')));
  releaseMountPoints(claims);
  assert.ok(!binds(args).some((b) => b.startsWith(elsewhere)), args.join(' '));
  assert.deepEqual(mustStayMissing, []);
});
