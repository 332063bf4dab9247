/** A hook that hangs is killed at its timeout and reported; the run goes on. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/workspace.ts';
import { ofType, runScripted, runInProcess, toolResults } from '../helpers/agent-run.ts';

test('a command hook past its timeout is killed, reported as an error, and does not block the call', async () => {
  const dir = tempDir();
  const settings = JSON.stringify({
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sleep 30', timeout: 1 }] }] },
  });
  const turns = [
    { tool_calls: [{ name: 'Bash', id: 'toolu_t', input: { command: 'echo still ran' } }] },
    { text: 'ok' },
  ];
  const started = Date.now();
  const run = await runScripted(dir, turns, [
    '--settings',
    settings,
    '--allowedTools',
    'Bash',
    '--include-hook-events',
  ]);
  const elapsed = Date.now() - started;
  assert.equal(run.code, 0, run.stderr);
  assert.ok(elapsed < 8000, `took ${elapsed} ms`);
  const [hook] = ofType(run.lines, 'system', 'hook_response');
  assert.equal(hook.outcome, 'error');
  assert.match(hook.stderr, /timed out after 1s/);
  assert.equal(toolResults(run.lines).get('toolu_t')!.content, 'still ran');
});

test('a library callback that never settles is abandoned at its timeout', async () => {
  let aborted = false;
  // The callback never settles: the prompt ends only because the hook's timeout abandoned it (no wall-clock bound).
  const out = await runInProcess(
    [{ tool_calls: [{ name: 'Glob', id: 'toolu_h', input: { pattern: '*' } }] }, { text: 'ok' }],
    {
      cwd: tempDir({ 'a.txt': 'a' }),
      includeHookEvents: true,
      hooks: {
        PreToolUse: [
          {
            timeout: 0.3,
            hooks: [
              (_input, _id, { signal }) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
            ],
          },
        ],
      },
    },
  );
  assert.equal(aborted, true, 'the callback saw its signal abort');
  const [hook] = ofType(out, 'system', 'hook_response');
  assert.equal(hook.outcome, 'error');
  assert.match(hook.stderr, /timed out/);
  assert.notEqual(toolResults(out).get('toolu_h')!.is_error, true);
  assert.equal(ofType(out, 'result')[0]!.subtype, 'success');
});
