/**
 * An attacker's rows against the hiding of a denied file's committed copy (deny-read.ts hides the object store of a
 * repository while the file is tracked, or when a commit a ref or the reflog reaches holds it): `.env` committed once
 * and untracked since (the usual leak: `git rm --cached .env`, then .gitignore), and a clone that borrows its objects
 * (`git clone --shared`: alternates).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

function git(cwd: string, ...args: string[]) {
  execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=a', ...args], { cwd, stdio: 'pipe' });
}

function world() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  mkdirSync(work);
  mkdirSync(home);
  writeFileSync(path.join(work, '.env'), 'SECRET=hunter2\n');
  writeFileSync(path.join(work, 'a.txt'), 'plain\n');
  git(work, 'init', '-q');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'first');
  return { root, work, env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') } };
}

/** Runs `command` from a script the check cannot see into (as a model would: it wrote the script before). */
async function bypassing(w: { root: string; env: NodeJS.ProcessEnv }, cwd: string, command: string) {
  const hidden = path.join(w.root, 'show.py');
  writeFileSync(hidden, `import subprocess\nsubprocess.run(['sh', '-c', ${JSON.stringify(command + ' 2>&1')}])\n`);
  command = `python3 ${hidden}`;
  const script = writeScript(w.root, [{ tool_calls: [{ name: 'Bash', input: { command } }] }, { text: 'done' }]);
  const args = ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'];
  const out = await runCli([...args, '--sandbox', 'required', '--disallowedTools', 'Read(./.env)'], {
    cwd,
    env: w.env,
    timeoutMs: 60_000,
  });
  assert.equal(out.code, 0, out.stderr);
  return parseLines(out.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content))
    .join('');
}

test('.env committed once, untracked since: its old copy is not readable from history', async () => {
  const w = world();
  writeFileSync(path.join(w.work, '.gitignore'), '.env\n');
  git(w.work, 'rm', '-q', '--cached', '.env');
  git(w.work, 'add', '.gitignore');
  git(w.work, 'commit', '-q', '-m', 'untrack .env');
  const shown = await bypassing(w, w.work, 'git show HEAD~1:.env');
  assert.doesNotMatch(shown, /hunter2/);
});

test('a clone borrowing its objects (alternates): the borrowed store is hidden too', async () => {
  const w = world();
  const clone = path.join(w.root, 'clone');
  git(w.root, 'clone', '-q', '--shared', w.work, clone);
  const shown = await bypassing(w, clone, `git --git-dir=${path.join(w.work, '.git')} show HEAD:.env`);
  assert.doesNotMatch(shown, /hunter2/);
});

/** A repository whose one commit does not hold `.env`, and `.env` beside it, untracked. */
function untrackedWorld() {
  const w = world();
  git(w.work, 'rm', '-q', '--cached', '.env');
  writeFileSync(path.join(w.work, '.gitignore'), 'other\n');
  git(w.work, 'add', '.gitignore');
  git(w.work, 'commit', '-q', '--amend', '-m', 'first');
  git(w.work, 'reflog', 'expire', '--expire=now', '--all');
  git(w.work, 'gc', '-q', '--prune=now');
  return w;
}

test('.env kept only in a stash made with -u (its third parent): not readable from there', async () => {
  const w = untrackedWorld();
  git(w.work, 'stash', 'push', '-q', '-u');
  // The user takes the file back but keeps the stash (`git stash apply`): the copy stays in the stash's third parent.
  git(w.work, 'stash', 'apply', '-q');
  const shown = await bypassing(w, w.work, 'git show stash^3:.env; git log --all --format=%H --full-history -- .env');
  assert.doesNotMatch(shown, /hunter2/);
});

test('.env committed only on a branch that lives in packed-refs: not readable from it', async () => {
  const w = untrackedWorld();
  git(w.work, 'checkout', '-q', '-b', 'secret');
  git(w.work, 'add', '-f', '.env');
  git(w.work, 'commit', '-q', '-m', 'keep the secret');
  git(w.work, 'checkout', '-q', '-');
  git(w.work, 'pack-refs', '--all');
  git(w.work, 'reflog', 'expire', '--expire=now', '--all');
  assert.equal(existsSync(path.join(w.work, '.git', 'refs', 'heads', 'secret')), false, 'only in packed-refs');
  const shown = await bypassing(w, w.work, 'git show secret:.env');
  assert.doesNotMatch(shown, /hunter2/);
});
