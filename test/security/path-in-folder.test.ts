/**
 * Attacker row: PATH names a folder inside the working folder by its absolute path (a project's `.venv/bin` or
 * `node_modules/.bin`, direnv's `PATH_add bin`). A sandboxed command may write there; a `git` it plants must not be
 * the git agentpipe itself runs outside the sandbox (the shell check's config read, deny-read's history look), or the
 * sandbox is escaped by the next Bash line that names git.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

test('a git planted in a PATH folder inside the working folder is not run outside the sandbox', async () => {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.agentpipe'), { recursive: true });
  mkdirSync(work);
  assert.equal(spawnSync('git', ['init', '-q', work]).status, 0);
  const marker = path.join(root, 'PWNED');
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  const planted = `#!/bin/sh\ntouch '${marker}'\nexec '${real}' "$@"\n`;
  const script = writeScript(root, [
    {
      tool_calls: [
        {
          name: 'Bash',
          input: { command: `mkdir -p bin && printf '%s' '${planted}' > bin/git && chmod +x bin/git && echo PLACED` },
        },
      ],
    },
    { tool_calls: [{ name: 'Bash', input: { command: 'git status --short; git log -1 2>&1 | head -1' } }] },
    { text: 'done' },
  ]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
    cwd: work,
    env: {
      HOME: home,
      AGENTPIPE_HOME: path.join(home, '.agentpipe'),
      PATH: `${path.join(work, 'bin')}:${process.env.PATH ?? ''}`,
    },
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  const said = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content))
    .join('\n');
  assert.match(said, /PLACED/, said);
  assert.equal(existsSync(marker), false, 'the planted git ran outside the sandbox');
});
