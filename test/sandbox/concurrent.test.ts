/**
 * Several agentpipe processes running sandboxed commands in one folder at once (a cluster's
 * workers, parallel tests, two sessions of a user). The folder has no `.claude/` or `.agentpipe/`,
 * so every command's sandbox mounts an empty read-only one on a point made for it. Before points
 * were claimed across processes (src/sandbox/points.ts), one process removed a point another's
 * bubblewrap was mounting: commands failed with "bwrap: Can't find source path .../.agentpipe" or
 * "Can't get type of source" (most rounds of 8 processes), and a point removed under a running
 * command let it create the folder on the host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const PROCESSES = 6;
const COMMANDS = 4;

test('sandboxed runs of several processes at once in one folder: all start, none plants a protected folder', async () => {
  const root = tempDir();
  const work = path.join(root, 'work');
  const home = path.join(root, 'home');
  mkdirSync(path.join(work, '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(home, '.agentpipe'), { recursive: true });
  const env = { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') };
  const runs = Array.from({ length: PROCESSES }, (_, p) => {
    const steps = Array.from({ length: COMMANDS }, (_, c) => ({
      tool_calls: [
        {
          name: 'Bash',
          input: {
            // Writes its own file, then tries to plant a project settings file (a point that another process's
            // release had detached under the command would let it).
            command:
              `echo ${p}-${c} > out-${p}-${c}.txt && for i in 1 2 3 4 5 6 7 8; do ` +
              `mkdir -p .claude/x .agentpipe/x 2>/dev/null && echo PLANTED; done; cat out-${p}-${c}.txt`,
          },
        },
      ],
    }));
    const script = writeScript(root, [...steps, { text: 'done' }], `script-${p}.json`);
    return runCli(['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions'], {
      cwd: work,
      env,
      timeoutMs: 60_000,
    });
  });
  const ended = await Promise.all(runs);
  ended.forEach((run, p) => {
    assert.equal(run.code, 0, run.stderr);
    const results = parseLines(run.stdout)
      .filter((m) => m.type === 'user')
      .map((m) => JSON.stringify(m.message.content));
    assert.equal(results.length, COMMANDS);
    results.forEach((result, c) => {
      assert.doesNotMatch(result, /bwrap|PLANTED/, `process ${p}, command ${c}`);
      assert.match(result, new RegExp(`${p}-${c}`));
    });
    for (let c = 0; c < COMMANDS; c++)
      assert.equal(readFileSync(path.join(work, `out-${p}-${c}.txt`), 'utf8'), `${p}-${c}\n`);
  });
  assert.equal(existsSync(path.join(work, '.claude')), false, 'the points are gone after the last run');
  assert.equal(existsSync(path.join(work, '.agentpipe')), false);
  assert.equal(readdirSync(work).length, 1 + PROCESSES * COMMANDS);
});
