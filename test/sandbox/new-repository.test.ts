/**
 * A sandboxed command cannot make a repository in a working folder that has none (`git init`, or
 * `.git/hooks/…` by hand): a later git outside the sandbox (the user's, an approved excluded
 * command) would run its hooks and config. The missing `.git` is an empty read-only folder while
 * the session runs, which git skips: in a subfolder of a repository, git inside still finds the
 * parent's. It is gone after the session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const bash = (command: string) => ({ tool_calls: [{ name: 'Bash', input: { command } }] });

async function bypassing(root: string, cwd: string, commands: string[]) {
  const script = writeScript(root, [...commands.map(bash), { text: 'done' }]);
  const home = path.join(root, 'home');
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd,
    env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') },
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  return parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content));
}

test('a working folder without .git: no command can make one; git still finds a parent repository', async () => {
  const root = tempDir();
  const parent = path.join(root, 'repo');
  const work = path.join(parent, 'sub');
  mkdirSync(work, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main', parent]);
  const results = await bypassing(root, work, [
    'git init -q . 2>&1; echo "init=$?"',
    'mkdir -p .git/hooks 2>&1; printf "#!/bin/sh\\necho PWNED\\n" > .git/hooks/pre-commit 2>&1; echo "hook=$?"',
    'git rev-parse --show-toplevel',
    'echo ok > made.txt && cat made.txt',
  ]);
  assert.match(results[0]!, /init=[1-9]/, 'git init fails');
  assert.match(results[1]!, /hook=[1-9]/, 'no hook planted by hand');
  assert.match(
    results[2]!,
    new RegExp(parent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    "git finds the parent's repository",
  );
  assert.match(results[3]!, /ok/);
  assert.equal(existsSync(path.join(work, '.git')), false, 'the empty .git is gone after the session');
  assert.equal(existsSync(path.join(parent, '.git', 'hooks', 'pre-commit')), false);
});
