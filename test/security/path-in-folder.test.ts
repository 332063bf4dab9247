/**
 * Attacker rows: PATH names a folder inside the working folder by its absolute path (a project's `.venv/bin` or
 * `node_modules/.bin`, direnv's `PATH_add bin`). A command may write there; a `git` it plants must not be the git
 * agentpipe itself runs outside the sandbox (the shell check's config read, deny-read's history look), or the sandbox
 * is escaped by the next Bash line that names git: planted in this session (a sandboxed command), or in an earlier one
 * (then before the session's first look for a program: bwrap itself, the mount plan's git).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const REAL_GIT = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();

/** A repository `work` whose `bin` is first on PATH, the marker a planted git leaves, and a way to run commands. */
function project() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.agentpipe'), { recursive: true });
  mkdirSync(work);
  assert.equal(spawnSync('git', ['init', '-q', work]).status, 0);
  const marker = path.join(root, 'PWNED');
  const planted = `#!/bin/sh\ntouch '${marker}'\nexec '${REAL_GIT}' "$@"\n`;
  const run = async (commands: string[], mode: string, extra: string[] = []): Promise<string> => {
    const turns = commands.map((command) => ({ tool_calls: [{ name: 'Bash', input: { command } }] }));
    const script = writeScript(root, [...turns, { text: 'done' }]);
    const env = {
      HOME: home,
      AGENTPIPE_HOME: path.join(home, '.agentpipe'),
      PATH: `${path.join(work, 'bin')}:${process.env.PATH ?? ''}`,
    };
    const ran = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', mode, ...extra], {
      cwd: work,
      env,
      timeoutMs: 60_000,
    });
    assert.equal(ran.code, 0, ran.stderr);
    return parseLines(ran.stdout)
      .filter((m) => m.type === 'user')
      .map((m) => JSON.stringify(m.message.content))
      .join('\n');
  };
  return { work, marker, planted, run };
}

test('a git a sandboxed command plants in a PATH folder inside the working folder is not run outside', async () => {
  const { marker, planted, run } = project();
  const place = `mkdir -p bin && printf '%s' '${planted}' > bin/git && chmod +x bin/git && echo PLACED`;
  const said = await run([place, 'git status --short; git log -1 2>&1 | head -1'], 'bypassPermissions');
  assert.match(said, /PLACED/, said);
  assert.equal(existsSync(marker), false, 'the planted git ran outside the sandbox');
});

test('a git planted there before the session is not run by the check of its first line (default mode)', async () => {
  const { work, marker, planted, run } = project();
  mkdirSync(path.join(work, 'bin'));
  writeFileSync(path.join(work, 'bin/git'), planted);
  chmodSync(path.join(work, 'bin/git'), 0o755);
  await run(['git status --short'], 'default');
  assert.equal(existsSync(marker), false, 'the planted git ran outside the sandbox');
});

test("a git planted there before the session is not run by the first command's deny-read history look", async () => {
  const { work, marker, planted, run } = project();
  mkdirSync(path.join(work, 'bin'));
  writeFileSync(path.join(work, 'bin/git'), planted);
  chmodSync(path.join(work, 'bin/git'), 0o755);
  writeFileSync(path.join(work, '.env'), 'SECRET');
  // No git in the line: the shell check reads no git config, so the mount plan's look is the first git run.
  await run(['echo hi'], 'bypassPermissions', ['--disallowedTools', 'Read(./.env)']);
  assert.equal(existsSync(marker), false, 'the planted git ran outside the sandbox');
});

test('a bwrap planted there before the session is not the one that starts the sandbox', async () => {
  const { work, marker, run } = project();
  const real = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout.trim();
  mkdirSync(path.join(work, 'bin'));
  writeFileSync(path.join(work, 'bin/bwrap'), `#!/bin/sh\ntouch '${marker}'\nexec '${real}' "$@"\n`);
  chmodSync(path.join(work, 'bin/bwrap'), 0o755);
  await run(['echo hi'], 'bypassPermissions', ['--sandbox', 'required']);
  assert.equal(existsSync(marker), false, 'the planted bwrap ran outside the sandbox');
});
