/**
 * Attacker rows: programs agentpipe starts outside the sandbox by name (git for the deny-read and submodule lookups
 * and the shell check's config read, bwrap, nsenter) must not be found in a folder the model can write. A PATH with
 * an empty entry (`:/usr/bin`, a common slip), `.` or a relative entry (`node_modules/.bin`) names the process's
 * current folder, or the repository git runs in: a `git` the model wrote there would run outside the sandbox, with
 * everything of the user's. Such entries are skipped (as Go's exec.LookPath refuses them), and git is run by the
 * absolute path found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, neverRunFrom, outsidePath } from '../../src/process/executable.ts';
import { gitOutside } from '../../src/sandbox/git-outside.ts';
import { unsafeRepositoryConfig } from '../../src/tools/shell/git-repository.ts';
import { tempDir } from '../helpers/workspace.ts';

const SYSTEM_PATH = process.env.PATH ?? '/usr/bin:/bin';

/** A repository root holding a program `name` of the model's, which leaves `marker` when it runs. */
function plantedProgram(name: string): { root: string; marker: string } {
  const root = tempDir();
  const marker = path.join(root, 'PWNED');
  const program = path.join(root, name);
  writeFileSync(program, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(program, 0o755);
  mkdirSync(path.join(root, '.git'));
  return { root, marker };
}

for (const [label, entries] of [
  ['a leading empty entry', (_: string) => `:${SYSTEM_PATH}`],
  ['a trailing empty entry, nothing else', (_: string) => ':'],
  ['`.` first', (_: string) => `.:${SYSTEM_PATH}`],
  ['a relative entry first', (root: string) => `${path.relative(process.cwd(), root) || '.'}:${SYSTEM_PATH}`],
] as const) {
  test(`git outside the sandbox is not the repository's own with ${label} on PATH`, async () => {
    const { root, marker } = plantedProgram('git');
    await gitOutside(root, { ...process.env, PATH: entries(root) }, ['ls-files', '-z'], 1 << 20);
    assert.equal(existsSync(marker), false, 'the git planted in the repository ran outside the sandbox');
  });

  test(`the shell check's git config read is not the repository's git with ${label} on PATH`, async () => {
    const { root, marker } = plantedProgram('git');
    await unsafeRepositoryConfig(root, { ...process.env, PATH: entries(root) });
    assert.equal(existsSync(marker), false, 'the git planted in the repository ran outside the sandbox');
  });
}

test('findExecutable skips empty, `.` and relative PATH entries', () => {
  const { root } = plantedProgram('bwrap-probe');
  const relative = path.relative(process.cwd(), root);
  assert.equal(findExecutable('bwrap-probe', { PATH: `${relative}:/nonexistent` }), undefined);
  assert.equal(findExecutable('bwrap-probe', { PATH: `./${relative}` }), undefined);
  assert.equal(findExecutable('bwrap-probe', { PATH: `/nonexistent:${root}` }), path.join(root, 'bwrap-probe'));
  assert.equal(findExecutable(path.join(root, 'bwrap-probe'), { PATH: '' }), path.join(root, 'bwrap-probe'));
});

/** A folder marked as the model's (neverRunFrom) holding `prog`, a folder of the user's, and one outside both. */
function linkedFolders(): { marked: string; user: string; outside: string } {
  const root = tempDir();
  const [marked, user, outside] = ['work', 'home-bin', 'opt'].map((name) => path.join(root, name));
  for (const dir of [marked!, user!, outside!]) mkdirSync(dir);
  for (const dir of [marked!, outside!]) {
    writeFileSync(path.join(dir, 'prog'), '#!/bin/sh\n');
    chmodSync(path.join(dir, 'prog'), 0o755);
  }
  neverRunFrom([marked!]);
  return { marked: marked!, user: user!, outside: outside! };
}

test('findExecutable follows a link on PATH to where it leads: not into a folder the model writes', () => {
  const { marked, user, outside } = linkedFolders();
  symlinkSync(path.join(marked, 'prog'), path.join(user, 'prog'));
  assert.equal(findExecutable('prog', { PATH: user }), undefined, 'a link leading into the working folder');
  // A chain: a link outside leads to one that leads in.
  symlinkSync(path.join(marked, 'prog'), path.join(outside, 'hop'));
  symlinkSync(path.join(outside, 'hop'), path.join(user, 'chained'));
  assert.equal(findExecutable('chained', { PATH: user }), undefined, 'a chain of links ending in the working folder');
  // A folder link inside the working folder on the way, though it leads back out: a command may re-point it.
  symlinkSync(outside, path.join(marked, 'dl'));
  symlinkSync(path.join(marked, 'dl', 'prog'), path.join(user, 'through'));
  assert.equal(findExecutable('through', { PATH: user }), undefined, 'a link through a folder link of the model');
  // A relative link resolves from its own folder.
  symlinkSync(path.relative(user, path.join(marked, 'prog')), path.join(user, 'relative'));
  assert.equal(findExecutable('relative', { PATH: user }), undefined, 'a relative link into the working folder');
});

test('held: a link on PATH that leads outside the folders the model writes is found, as the link', () => {
  const { user, outside } = linkedFolders();
  symlinkSync(path.join(outside, 'prog'), path.join(user, 'prog'));
  assert.equal(findExecutable('prog', { PATH: user }), path.join(user, 'prog'));
  symlinkSync(path.join('..', 'opt', 'prog'), path.join(user, 'up'));
  assert.equal(findExecutable('up', { PATH: user }), path.join(user, 'up'));
});

test('findExecutable: a PATH entry that is a folder link into the working folder, and a link by /proc/self/cwd', () => {
  const { marked, user, outside } = linkedFolders();
  symlinkSync(marked, path.join(user, 'wbin'));
  assert.equal(findExecutable('prog', { PATH: path.join(user, 'wbin') }), undefined, 'a PATH entry linking in');
  // `..` in an entry is taken as written (the path returned is the normalised one the kernel is then given).
  assert.equal(findExecutable('prog', { PATH: `${path.join(user, 'wbin')}/../../opt` }), path.join(outside, 'prog'));
  // A link by the process's current folder (the working folder): /proc/self/cwd is followed as the kernel does.
  symlinkSync('/proc/self/cwd/prog', path.join(user, 'cwdprog'));
  const was = process.cwd();
  process.chdir(marked);
  try {
    assert.equal(findExecutable('cwdprog', { PATH: user }), undefined, 'a link by /proc/self/cwd into it');
  } finally {
    process.chdir(was);
  }
});

test('outsidePath keeps only the absolute PATH entries that do not lead into a folder the model writes', () => {
  const { marked, user, outside } = linkedFolders();
  symlinkSync(marked, path.join(user, 'wbin'));
  const entries = ['', '.', 'node_modules/.bin', marked, path.join(marked, 'sub'), path.join(user, 'wbin'), outside];
  assert.equal(outsidePath([...entries, user].join(':')), `${outside}:${user}`);
  // An entry with `..` is given as judged: through the folder link, the kernel would land in the working folder.
  mkdirSync(path.join(marked, 'sub'));
  symlinkSync(path.join(marked, 'sub'), path.join(user, 'wsub'));
  assert.equal(outsidePath(`${path.join(user, 'wsub')}/../opt`), path.join(user, 'opt'));
});
