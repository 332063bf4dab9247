/**
 * An attacker's rows against the workspace sandbox (bypassPermissions: the check out of the way):
 * configuration that a later program outside the sandbox runs must not be creatable when it does not
 * exist yet, and must stay unwritable when it does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

/** A working folder's path (`name`, not made), a folder outside it and a home folder, with the run's environment. */
function places(name = 'work') {
  const root = tempDir();
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  mkdirSync(outside);
  mkdirSync(home);
  return { work: path.join(root, name), outside, env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') } };
}

/** A working folder holding a repository without `.git/hooks` (as some tools make them), and a folder outside it. */
function world() {
  const w = places();
  execFileSync('git', ['init', '-q', w.work]);
  rmSync(path.join(w.work, '.git', 'hooks'), { recursive: true, force: true });
  return w;
}

/** Runs each command as one Bash call in bypassPermissions; returns the tool results' texts. */
async function bypassing(w: ReturnType<typeof world>, commands: string[]): Promise<string[]> {
  const calls = commands.map((command) => ({ tool_calls: [{ name: 'Bash', input: { command } }] }));
  const script = writeScript(w.outside, [...calls, { text: 'done' }]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd: w.work,
    env: w.env,
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content));
  assert.equal(results.length, commands.length);
  return results;
}

const plant = (file: string) =>
  `mkdir -p $(dirname ${file}); echo 'touch PWNED' > ${file}; chmod +x ${file}; echo done`;

test('missing editor, hook and husky folders cannot be created (and no point is left after the run)', async () => {
  const w = world();
  const files = ['.vscode/tasks.json', '.idea/workspace.xml', '.husky/pre-commit', '.git/hooks/pre-commit'];
  const results = await bypassing(w, [...files.map(plant), 'echo ok > made.txt']);
  for (const [i, file] of files.entries()) {
    assert.match(results[i]!, /Read-only file system/, file);
    assert.equal(existsSync(path.join(w.work, path.dirname(file))), false, `${file}: its folder is gone after the run`);
  }
  assert.equal(readFileSync(path.join(w.work, 'made.txt'), 'utf8'), 'ok\n', 'the folder stays writable');
});

test('an existing .pre-commit-config.yaml stays read-only (pre-commit runs it on the next commit)', async () => {
  const w = world();
  writeFileSync(path.join(w.work, '.pre-commit-config.yaml'), 'repos: []\n');
  const [result] = await bypassing(w, ['echo "- repo: local" >> .pre-commit-config.yaml']);
  assert.match(result!, /Read-only file system/);
  assert.equal(readFileSync(path.join(w.work, '.pre-commit-config.yaml'), 'utf8'), 'repos: []\n');
});

test('a missing .mcp.json, .envrc or .pre-commit-config.yaml cannot be created (MCP servers, direnv, pre-commit)', async () => {
  const w = world();
  const files = ['.mcp.json', '.envrc', '.pre-commit-config.yaml'];
  const results = await bypassing(w, [...files.map(plant), 'cat .mcp.json && echo "[empty]"; rm -f .envrc 2>&1']);
  for (const [i, file] of files.entries()) {
    assert.match(results[i]!, /Read-only file system/, file);
    assert.equal(existsSync(path.join(w.work, file)), false, `${file}: gone after the run`);
  }
  assert.match(results[3]!, /\[empty\].*(Read-only file system|busy)/, 'an empty file inside, which stays');
});

test('a command cannot make git outside the sandbox run a program through a submodule it registers', async () => {
  const w = world();
  const pwned = path.join(w.outside, 'PWNED');
  const git = 'git -c user.email=a@b -c user.name=a';
  const [result] = await bypassing(w, [
    `mkdir sub && cd sub && git init -q && ${git} commit -q --allow-empty -m s && ` +
      `git config core.fsmonitor 'touch ${pwned}; false' && cd .. && ` +
      `git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub; echo done`,
  ]);
  assert.match(result!, /index\.lock.*Read-only file system/, 'the index cannot be written');
  // The user's next `git status` (or an editor's) in the folder, outside the sandbox.
  execFileSync('git', ['status', '--short'], { cwd: w.work, stdio: ['pipe', 'ignore', 'ignore'] });
  assert.equal(existsSync(pwned), false, 'git status ran the submodule config the command wrote');
});

test('a command cannot make a repository of the working folder when it has none (git status would run its config)', async () => {
  const w = world();
  rmSync(path.join(w.work, '.git'), { recursive: true, force: true });
  const pwned = path.join(w.outside, 'PWNED');
  await bypassing(w, [`git init -q && git config core.fsmonitor 'touch ${pwned}; false'; echo done`]);
  if (existsSync(path.join(w.work, '.git')))
    execFileSync('git', ['status', '--short'], { cwd: w.work, stdio: ['pipe', 'ignore', 'ignore'] });
  assert.equal(existsSync(pwned), false, 'git status ran the config the command wrote');
});

test("a command cannot put a repository of its own in an existing submodule's place (git status would run its config)", async () => {
  const w = world();
  const pwned = path.join(w.outside, 'PWNED');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd: w.work, stdio: 'pipe' });
  // A repository with a submodule `lib`, not checked out (its folder empty, as after a clone without --recursive).
  const other = path.join(w.outside, 'lib-src');
  execFileSync('git', ['init', '-q', other]);
  execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'l'], {
    cwd: other,
  });
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: other, encoding: 'utf8' }).trim();
  git('update-index', '--add', '--cacheinfo', `160000,${head},lib`);
  mkdirSync(path.join(w.work, 'lib'));
  const plant = `git init -q && git config core.fsmonitor 'touch ${pwned}; false'; echo done`;
  // In a subshell: a `cd` holds for the next Bash call (as in Claude Code), and the second line starts in the cwd.
  const results = await bypassing(w, [`(cd lib && ${plant})`, `mv lib lib.old && mkdir lib && cd lib && ${plant}`]);
  assert.match(results[0]!, /Read-only file system/, 'no repository made in the checkout');
  assert.match(results[1]!, /Device or resource busy/, 'the checkout not moved aside');
  execFileSync('git', ['status', '--short'], { cwd: w.work, stdio: ['pipe', 'ignore', 'ignore'] });
  assert.equal(existsSync(pwned), false, 'git status ran the config the command wrote in the submodule');
});

/**
 * A folder of clones as the working folder (`--cwd ~/code`): `app`, a vendored clone in it, a linked worktree of
 * `app` (its `.git` a file), and a clone six folders down; no submodule.
 */
function folderOfClones() {
  const w = places('code');
  const work = w.work;
  mkdirSync(work);
  const git = (...args: string[]) => execFileSync('git', args, { stdio: 'ignore' });
  git('init', '-q', path.join(work, 'app'));
  git('init', '-q', path.join(work, 'app', 'vendor', 'lib'));
  git('init', '-q', path.join(work, 'a', 'b', 'c', 'd', 'e', 'deep'));
  git('-C', path.join(work, 'app'), 'commit', '-q', '--allow-empty', '-m', 'one', '--author', 'a <a@b>');
  git('-C', path.join(work, 'app'), 'worktree', 'add', '-q', path.join(work, 'app-wt'));
  // A clone whose git folder lives beside it (`--separate-git-dir`): its .git is a file naming `lib2.git`.
  git('init', '-q', `--separate-git-dir=${path.join(work, 'lib2.git')}`, path.join(work, 'lib2'));
  // Bare repositories: a mirror, and a dotfiles one (`git --git-dir=.dotfiles --work-tree=.`).
  git('init', '-q', '--bare', path.join(work, 'mirror.git'));
  git('init', '-q', '--bare', path.join(work, 'x', '.dotfiles'));
  return w;
}

test('repositories below the working folder (1, 3 and 6 deep, a worktree): their hooks and config stay unwritable', async () => {
  const w = folderOfClones();
  const pwned = path.join(w.outside, 'PWNED');
  const repos = ['app', 'app/vendor/lib', 'a/b/c/d/e/deep', 'app-wt', 'lib2'];
  const results = await bypassing(w, [
    `mkdir -p app/.git/hooks && printf '#!/bin/sh\\ntouch ${pwned}\\n' > app/.git/hooks/post-checkout; echo rc=$?`,
    ...repos.map((repo) => `git -C ${repo} config core.fsmonitor 'touch ${pwned}; false'; echo rc=$?`),
    // A worktree's .git names its gitdir: pointed at a gitdir of the command's making, git would run its config.
    `echo 'gitdir: ${w.outside}' > app-wt/.git; echo rc=$?`,
    ...['mirror.git', 'x/.dotfiles'].map(
      (bare) => `git --git-dir=${bare} config core.pager 'touch ${pwned}'; echo rc=$?`,
    ),
    `printf '#!/bin/sh\\ntouch ${pwned}\\n' > mirror.git/hooks/post-update; echo rc=$?`,
  ]);
  for (const [i, r] of results.entries()) assert.doesNotMatch(r, /rc=0/, `command ${i}: ${r}`);
  for (const repo of repos)
    execFileSync('git', ['status', '--short'], { cwd: path.join(w.work, repo), stdio: 'ignore' });
  assert.equal(existsSync(pwned), false, "git status outside the sandbox ran the command's program");
});

test('a working folder whose git folder is beside it, with a repository next to that: both stay unwritable', async () => {
  const w = places();
  const { work } = w;
  mkdirSync(path.join(work, 'meta'), { recursive: true });
  // The working folder's .git names work/meta/work.git; work/meta/other is a repository too, so the walk binds
  // work/meta onto itself on the way to it: that bind must not cover work.git made read-only before.
  execFileSync('git', ['init', '-q', `--separate-git-dir=${path.join(work, 'meta', 'work.git')}`, work]);
  execFileSync('git', ['init', '-q', path.join(work, 'meta', 'other')]);
  const pwned = path.join(w.outside, 'PWNED');
  const results = await bypassing(w, [
    `git config core.fsmonitor 'touch ${pwned}; false'; echo rc=$?`,
    `git -C meta/other config core.fsmonitor 'touch ${pwned}; false'; echo rc=$?`,
  ]);
  for (const [i, r] of results.entries()) assert.doesNotMatch(r, /rc=0/, `command ${i}: ${r}`);
  execFileSync('git', ['status', '--short'], { cwd: work, stdio: 'ignore' });
  assert.equal(existsSync(pwned), false);
});

test("a repository below the working folder cannot be moved aside for one of the command's making", async () => {
  const w = folderOfClones();
  const pwned = path.join(w.outside, 'PWNED');
  const results = await bypassing(w, [
    `mv app app-old; echo rc=$?`,
    `mv app/vendor/lib app/vendor/lib-old; echo rc=$?`,
    `mv app/vendor app/vendor-old; echo rc=$?`,
  ]);
  for (const r of results) assert.doesNotMatch(r, /rc=0/, r);
  assert.ok(existsSync(path.join(w.work, 'app', 'vendor', 'lib', '.git')));
  execFileSync('git', ['status', '--short'], { cwd: path.join(w.work, 'app'), stdio: 'ignore' });
  assert.equal(existsSync(pwned), false);
});

test('repositories whose .git is a link to a plain folder: that folder is read-only, and a link replaced is put back', async () => {
  const w = places();
  const { work } = w;
  // The working folder's repository and one below it, each `.git` a link to a folder of the working folder.
  for (const [repo, store, link] of [
    [work, '.repo', '.repo'],
    [path.join(work, 'sub'), 'store', '../store'],
  ] as const) {
    execFileSync('git', ['init', '-q', repo]);
    renameSync(path.join(repo, '.git'), path.join(work, store));
    symlinkSync(link, path.join(repo, '.git'));
  }
  const pwned = path.join(w.outside, 'PWNED');
  const fsmonitor = `core.fsmonitor 'touch ${pwned}; false'`;
  const results = await bypassing(w, [
    `git -C sub config ${fsmonitor}; echo rc=$?`,
    `git config ${fsmonitor}; echo rc=$?`,
    `printf '#!/bin/sh\\ntouch ${pwned}\\n' > store/hooks/post-checkout; echo rc=$?`,
    `printf '#!/bin/sh\\ntouch ${pwned}\\n' > .repo/hooks/post-checkout; echo rc=$?`,
    // No mount can sit on a link: the command may replace them, with links to a repository of its making.
    `git init -q evil && git -C evil config ${fsmonitor} && rm sub/.git .git && ` +
      `ln -s ../evil/.git sub/.git && ln -s evil/.git .git; echo swapped=$?`,
  ]);
  for (const [i, r] of results.slice(0, 4).entries()) assert.doesNotMatch(r, /rc=0/, `command ${i}: ${r}`);
  assert.match(results[4]!, /swapped=0/, 'the links were replaced inside (what the restore is for)');
  assert.equal(readlinkSync(path.join(work, 'sub', '.git')), '../store', 'put back after the run');
  assert.equal(readlinkSync(path.join(work, '.git')), '.repo');
  for (const repo of [work, path.join(work, 'sub')])
    execFileSync('git', ['status', '--short'], { cwd: repo, stdio: 'ignore' });
  assert.equal(existsSync(pwned), false, "git status outside the sandbox ran the command's program");
});
