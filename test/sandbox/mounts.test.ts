/**
 * mountArgs on the git folder of a writable folder: bound read-only onto itself (a mount point
 * cannot be moved aside or replaced), writable but for what git runs when allowWrite names it,
 * never made writable when a link leads elsewhere; a missing commondir is named for removal after
 * the run.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { mountArgs, releaseMountPoints } from '../../src/sandbox/mounts.ts';
import { tempDir } from '../helpers/workspace.ts';

function plan(writable: string[], emptyDir: string) {
  const emptyFile = `${emptyDir}-file`;
  const none: string[] = [];
  return {
    writable,
    denyWrite: none,
    hidden: none,
    allowRead: none,
    credentialStores: false,
    emptyDir,
    emptyFile,
    homes: none,
  };
}

/** The `--bind SRC DEST` (or `--ro-bind`) pairs of an argument list. */
const binds = (args: string[], kind = '--bind') =>
  args.flatMap((a, i) => (a === kind ? [`${args[i + 1]} ${args[i + 2]}`] : []));

test('a writable folder: its .git is bound read-only onto itself (a mount point that cannot be replaced)', () => {
  const root = realpathSync(tempDir());
  const work = path.join(root, 'work');
  mkdirSync(path.join(work, '.git', 'hooks'), { recursive: true });
  const { args, claims, mustStayMissing } = mountArgs(plan([work], path.join(root, 'empty')));
  releaseMountPoints(claims);
  const git = path.join(work, '.git');
  assert.ok(binds(args, '--ro-bind').includes(`${git} ${git}`), args.join(' '));
  assert.ok(!binds(args).includes(`${git} ${git}`), args.join(' '));
  assert.deepEqual(mustStayMissing, []);
});

test('a .git that allowWrite names: writable, but for hooks, config, modules; a missing commondir removed after', () => {
  const root = realpathSync(tempDir());
  const work = path.join(root, 'work');
  const git = path.join(work, '.git');
  mkdirSync(path.join(git, 'hooks'), { recursive: true });
  mkdirSync(path.join(git, 'modules'));
  writeFileSync(path.join(git, 'config'), '[core]\n');
  const { args, claims, mustStayMissing } = mountArgs(plan([work, git], path.join(root, 'empty')));
  releaseMountPoints(claims);
  assert.ok(binds(args).includes(`${git} ${git}`), args.join(' '));
  for (const name of ['hooks', 'config', 'modules'])
    assert.ok(binds(args, '--ro-bind').includes(`${git}/${name} ${git}/${name}`), name);
  assert.ok(binds(args, '--ro-bind').includes(`${root}/empty-file ${git}/config.worktree`), 'a missing one: a point');
  assert.ok(!args.includes(`${git}/.claude`), 'the git folder is no working folder of its own');
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

test("a writable folder inside another one's protected folder stays writable (a CLI's own agentpipe home)", () => {
  // `--harness` with AGENTPIPE_HOME inside the CLI's home: `<home>/.agentpipe` is protected read-only in `<home>`, and
  // `<home>/.agentpipe/harness` is writable; it was covered by the first, and bubblewrap failed making its points.
  const root = realpathSync(tempDir());
  const home = path.join(root, 'home');
  const own = path.join(home, '.agentpipe', 'harness');
  mkdirSync(own, { recursive: true });
  mkdirSync(path.join(root, 'empty'));
  writeFileSync(path.join(root, 'empty-file'), '');
  const { args, claims } = mountArgs(plan([home, own], path.join(root, 'empty')));
  try {
    const script = `echo x > ${own}/made && echo OWN_WRITTEN; echo x > ${home}/.agentpipe/planted || echo PROTECTED`;
    const out = execFileSync('bwrap', ['--unshare-user', '--cap-drop', 'ALL', ...args, '--', 'sh', '-c', script], {
      input: '',
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    assert.equal(out, 'OWN_WRITTEN\nPROTECTED\n');
  } finally {
    releaseMountPoints(claims);
  }
});

test('a hidden path inside a hidden folder that holds nothing kept gets no mount of its own; with a kept path it does', () => {
  const root = realpathSync(tempDir());
  const cache = path.join(root, 'cache');
  for (const name of ['registry', 'parts', 'kept']) mkdirSync(path.join(cache, name), { recursive: true });
  const empty = path.join(root, 'empty');
  const hidden = [cache, path.join(cache, 'registry'), path.join(cache, 'parts')];
  const whole = mountArgs({ ...plan([], empty), hidden });
  releaseMountPoints(whole.claims);
  assert.deepEqual(
    binds(whole.args, '--ro-bind').filter((b) => b.includes(cache)),
    [`${empty} ${cache}`],
    whole.args.join(' '),
  );
  // A kept path inside: the folder is an empty tmpfs with the kept path bound back, and each hidden one in it has
  // its own mount.
  const kept = path.join(cache, 'kept');
  const holding = mountArgs({ ...plan([], empty), hidden, allowRead: [kept] });
  releaseMountPoints(holding.claims);
  assert.deepEqual(
    holding.args.flatMap((a, i) => (a === '--tmpfs' ? [holding.args[i + 1]] : [])),
    [cache],
  );
  const roBinds = binds(holding.args, '--ro-bind');
  for (const name of ['registry', 'parts']) assert.ok(roBinds.includes(`${empty} ${path.join(cache, name)}`), name);
  assert.ok(roBinds.includes(`${kept} ${kept}`), holding.args.join(' '));
});

test('credential stores of package managers, databases and clouds beyond the usual ones are hidden', () => {
  const root = realpathSync(tempDir());
  const home = path.join(root, 'home');
  const files = [
    '.yarnrc.yml',
    '.pgpass',
    '.my.cnf',
    '.gradle/gradle.properties',
    '.gem/credentials',
    '.config/containers/auth.json',
    '.config/rclone/rclone.conf',
    '.config/composer/auth.json',
    '.s3cfg',
    '.boto',
    '.oci/config',
    '.config/doctl/config.yaml',
    // The default agentpipe home's transcripts, with this session's AGENTPIPE_HOME elsewhere.
    '.agentpipe/projects/p/session.jsonl',
  ];
  for (const file of files) {
    mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
    writeFileSync(path.join(home, file), 'secret');
  }
  const { args, claims } = mountArgs({
    ...plan([path.join(root, 'work')], path.join(root, 'empty')),
    credentialStores: true,
    homes: [home],
  });
  releaseMountPoints(claims);
  const covered = binds(args, '--ro-bind').map((pair) => pair.split(' ')[1]!);
  for (const file of files) {
    const target = path.join(home, file);
    assert.ok(
      covered.some((over) => target === over || target.startsWith(`${over}/`)),
      `${file} is not hidden: ${args.join(' ')}`,
    );
  }
});
