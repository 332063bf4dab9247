/**
 * An attacker's rows (issue 26): a working folder that holds repositories of its own below its root (a folder of
 * clones, `--cwd ~/code`; a vendored clone that is no submodule). A sandboxed command must not plant what the user's
 * next `git status` in one of them runs outside the sandbox: its hooks, its config (`core.fsmonitor`), its index.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

function world() {
  const root = tempDir();
  const work = path.join(root, 'code');
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  mkdirSync(outside);
  mkdirSync(home);
  mkdirSync(work);
  execFileSync('git', ['init', '-q', path.join(work, 'app')]);
  execFileSync('git', ['init', '-q', path.join(work, 'app', 'vendor', 'lib')]);
  return { work, outside, env: { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') } };
}

async function bypassing(w: ReturnType<typeof world>, commands: string[]): Promise<string[]> {
  const calls = commands.map((command) => ({ tool_calls: [{ name: 'Bash', input: { command } }] }));
  const script = writeScript(w.outside, [...calls, { text: 'done' }]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd: w.work,
    env: w.env,
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  return parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content));
}

// todo: the hole stands (only a working folder's own .git and the index's gitlinks are protected: mounts.ts protectGit,
// submodules.ts); this row fails until repositories below a working folder's root are found and protected too.
const OPEN = { todo: 'open hole: repositories below a working folder are writable (attacker pass, issue 26)' };

test('a repository below the working folder: its hooks and config stay unwritable', OPEN, async () => {
  const w = world();
  const pwned = path.join(w.outside, 'PWNED');
  const results = await bypassing(w, [
    `mkdir -p app/.git/hooks && printf '#!/bin/sh\\ntouch ${pwned}\\n' > app/.git/hooks/post-checkout; echo rc=$?`,
    `git -C app config core.fsmonitor 'touch ${pwned}; false'; echo rc=$?`,
    `git -C app/vendor/lib config core.fsmonitor 'touch ${pwned}; false'; echo rc=$?`,
  ]);
  for (const r of results) assert.doesNotMatch(r, /rc=0/, r);
  for (const repo of ['app', 'app/vendor/lib'])
    execFileSync('git', ['status', '--short'], { cwd: path.join(w.work, repo), stdio: 'ignore' });
  assert.equal(existsSync(pwned), false, "git status outside the sandbox ran the command's program");
});
