/**
 * bypassPermissions with the OS sandbox on: Write, Edit and NotebookEdit, which run inside agentpipe
 * rather than in a sandbox, write only where a sandboxed command may (the working folders, never
 * .git/hooks, .git/config, .agentpipe/ or .claude/, nothing hidden such as ~/.ssh), each refusal a
 * clear error result; with --sandbox off the same calls write (the test has teeth), but for the
 * configuration that makes programs run, which the permission check asks for first in every mode.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines, runCli, scriptedStreamArgs } from '../helpers/cli.ts';
import { ONE_CELL_NOTEBOOK, tempDir, writeScript } from '../helpers/workspace.ts';

function world() {
  const root = tempDir();
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  for (const dir of [path.join(work, '.git', 'hooks'), outside, path.join(home, '.ssh')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(work, '.git', 'config'), '[core]\n');
  writeFileSync(path.join(outside, 'notes.txt'), 'old\n');
  writeFileSync(path.join(outside, 'nb.ipynb'), ONE_CELL_NOTEBOOK);
  symlinkSync(outside, path.join(work, 'link'));
  const env = { HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') };
  return { root, work, outside, home, env };
}

/** The calls at .git/hooks, .git/config, .claude/, .agentpipe/ and ~/.ssh/authorized_keys: asked for first. */
const PROTECTED_CALLS = [1, 2, 3, 4, 5];

const write = (file_path: string) => ({ tool_calls: [{ name: 'Write', input: { file_path, content: 'PWNED\n' } }] });

async function attack(w: ReturnType<typeof world>, extra: string[] = []) {
  const calls = [
    write(path.join(w.outside, 'new.txt')),
    write('.git/hooks/pre-commit'),
    write('.git/config'),
    write('.claude/settings.json'),
    write('.agentpipe/settings.json'),
    write(path.join(w.home, '.ssh', 'authorized_keys')),
    write('link/via-link.txt'),
    { tool_calls: [{ name: 'Read', input: { file_path: path.join(w.outside, 'notes.txt') } }] },
    {
      tool_calls: [
        {
          name: 'Edit',
          input: { file_path: path.join(w.outside, 'notes.txt'), old_string: 'old', new_string: 'PWNED' },
        },
      ],
    },
    {
      tool_calls: [
        {
          name: 'NotebookEdit',
          input: { notebook_path: path.join(w.outside, 'nb.ipynb'), cell_id: 'c1', new_source: 'PWNED' },
        },
      ],
    },
    write('inside.txt'),
    write(path.join(w.home, '.ssh', 'notes.txt')),
  ];
  const script = writeScript(w.root, [...calls, { text: 'done' }]);
  const run = await runCli(
    ['-p', 'go', ...scriptedStreamArgs(script), '--permission-mode', 'bypassPermissions', ...extra],
    { cwd: w.work, env: w.env, timeoutMs: 60_000 },
  );
  assert.equal(run.code, 0, run.stderr);
  const results = parseLines(run.stdout)
    .filter((m) => m.type === 'user')
    .map((m) => m.message.content[0] as { is_error?: boolean; content: unknown });
  assert.equal(results.length, calls.length);
  return results.map((r) => ({ error: r.is_error === true, text: JSON.stringify(r.content) }));
}

test('bypassPermissions with the sandbox on: the file tools write only where a sandboxed command may', async () => {
  const w = world();
  const results = await attack(w);
  // Configuration that makes programs run is asked for before any write, in every mode (the permission check), in
  // Claude Code's words (agent/claude-denial.ts).
  for (const i of PROTECTED_CALLS) {
    assert.ok(results[i]!.error, `call ${i} refused: ${results[i]!.text}`);
    assert.match(results[i]!.text, /which is a sensitive file/);
  }
  for (const i of [0, 6, 8, 9]) {
    assert.ok(results[i]!.error, `call ${i} refused: ${results[i]!.text}`);
    assert.match(results[i]!.text, /bypassPermissions does not lift the OS sandbox/);
  }
  assert.match(results[0]!.text, /outside the folders sandboxed commands may write/);
  assert.ok(results[11]!.error, results[11]!.text);
  assert.match(results[11]!.text, /which the sandbox hides from commands/);
  assert.match(results[6]!.text, /leads there/);
  assert.equal(results[10]!.error, false, results[10]!.text);
  assert.equal(readFileSync(path.join(w.work, 'inside.txt'), 'utf8'), 'PWNED\n');
  for (const file of [
    path.join(w.outside, 'new.txt'),
    path.join(w.work, '.git/hooks/pre-commit'),
    path.join(w.work, '.claude/settings.json'),
    path.join(w.work, '.agentpipe/settings.json'),
    path.join(w.home, '.ssh/authorized_keys'),
    path.join(w.home, '.ssh/notes.txt'),
    path.join(w.outside, 'via-link.txt'),
  ])
    assert.equal(existsSync(file), false, file);
  assert.equal(readFileSync(path.join(w.work, '.git/config'), 'utf8'), '[core]\n');
  assert.equal(readFileSync(path.join(w.outside, 'notes.txt'), 'utf8'), 'old\n');
  assert.doesNotMatch(readFileSync(path.join(w.outside, 'nb.ipynb'), 'utf8'), /PWNED/);
});

test('bypassPermissions with --sandbox off: the same calls write (nothing but the sandbox refused them)', async () => {
  const w = world();
  const results = await attack(w, ['--sandbox', 'off']);
  for (const [i, r] of results.entries()) assert.doesNotMatch(r.text, /OS sandbox/, `call ${i}`);
  assert.equal(readFileSync(path.join(w.outside, 'new.txt'), 'utf8'), 'PWNED\n');
  assert.equal(readFileSync(path.join(w.outside, 'notes.txt'), 'utf8'), 'PWNED\n');
  // The permission check still asks before configuration that makes programs run, sandbox or not.
  for (const i of PROTECTED_CALLS) assert.match(results[i]!.text, /which is a sensitive file/, `call ${i}`);
  assert.equal(existsSync(path.join(w.work, '.git/hooks/pre-commit')), false);
});
