/**
 * Attacker rows: a file tool's call that carries a second path member. The input schema lets unknown members
 * through (a model may send Claude Code's parameters), so NotebookEdit may get `file_path` beside its own
 * `notebook_path`. Every check that judges the call's path (deny rules, acceptEdits' working folders, the OS
 * sandbox's wall in bypassPermissions) must judge the path the tool writes, not the decoy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { ONE_CELL_NOTEBOOK, tempDir, writeScript } from '../helpers/workspace.ts';

function world() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  for (const dir of [path.join(work, 'protected'), outside, home]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(work, 'protected', 'nb.ipynb'), ONE_CELL_NOTEBOOK);
  writeFileSync(path.join(work, 'decoy.ipynb'), ONE_CELL_NOTEBOOK);
  writeFileSync(path.join(outside, 'nb.ipynb'), ONE_CELL_NOTEBOOK);
  const env = { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') };
  return { root, work, outside, env };
}

/** Reads `target`, then NotebookEdits it with a decoy `file_path` inside the folder; the results' texts. */
async function readThenEdit(w: ReturnType<typeof world>, target: string, args: string[]) {
  const calls = [
    { tool_calls: [{ name: 'Read', input: { file_path: target } }] },
    {
      tool_calls: [
        {
          name: 'NotebookEdit',
          input: { notebook_path: target, file_path: 'decoy.ipynb', cell_id: 'c1', new_source: 'PWNED' },
        },
      ],
    },
  ];
  const script = writeScript(w.root, [...calls, { text: 'done' }]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script), ...args], {
    cwd: w.work,
    env: w.env,
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => JSON.stringify(m.message.content[0]));
  assert.equal(results.length, calls.length);
  return results;
}

test('a deny rule on Edit holds against NotebookEdit with a decoy file_path (acceptEdits)', async () => {
  const w = world();
  const results = await readThenEdit(w, 'protected/nb.ipynb', [
    '--permission-mode',
    'acceptEdits',
    '--disallowedTools',
    'Edit(./protected/**)',
  ]);
  assert.doesNotMatch(results[0]!, /is_error":true/, 'the Read runs');
  assert.match(results[1]!, /is_error":true/, results[1]);
  assert.doesNotMatch(readFileSync(path.join(w.work, 'protected', 'nb.ipynb'), 'utf8'), /PWNED/);
  assert.doesNotMatch(readFileSync(path.join(w.work, 'decoy.ipynb'), 'utf8'), /PWNED/);
});

test('acceptEdits asks before NotebookEdit writes outside the working folders behind a decoy file_path', async () => {
  const w = world();
  const target = path.join(w.outside, 'nb.ipynb');
  // The user lets the model read anything; editing outside the folder still needs an answer (nobody to ask here).
  const results = await readThenEdit(w, target, ['--permission-mode', 'acceptEdits', '--allowedTools', 'Read']);
  assert.doesNotMatch(results[0]!, /is_error":true/, 'the Read runs');
  assert.match(results[1]!, /is_error":true/, results[1]);
  assert.doesNotMatch(readFileSync(target, 'utf8'), /PWNED/);
});

test('bypassPermissions with the sandbox on: NotebookEdit behind a decoy file_path writes nothing outside', async () => {
  const w = world();
  const target = path.join(w.outside, 'nb.ipynb');
  const results = await readThenEdit(w, target, ['--permission-mode', 'bypassPermissions']);
  assert.match(results[1]!, /bypassPermissions does not lift the OS sandbox/, results[1]);
  assert.doesNotMatch(readFileSync(target, 'utf8'), /PWNED/);
});

test("Glob's pattern is judged from its own `path`, not from a decoy file_path (default mode, nobody to ask)", async () => {
  const w = world();
  mkdirSync(path.join(w.work, 'a', 'b', 'c'), { recursive: true });
  const script = writeScript(w.root, [
    { tool_calls: [{ name: 'Glob', input: { pattern: '../outside/*', file_path: 'a/b/c' } }] },
    { text: 'done' },
  ]);
  const run = await runCli(['-p', 'go', ...scriptedStreamArgs(script)], { cwd: w.work, env: w.env, timeoutMs: 60_000 });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.stringify(parseLines(run.stdout).find((m) => m.type === 'user')!.message.content[0]);
  assert.doesNotMatch(result, /nb\.ipynb/, 'no name from outside the working folder');
  assert.match(result, /is_error":true/, result);
});
