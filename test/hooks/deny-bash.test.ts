/** A settings hook that denies a Bash call: by exit code 2, and by JSON on stdout. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/workspace.ts';
import { ofType, runScripted, toolResults } from '../helpers/agent-run.ts';

const bashTurns = [
  { tool_calls: [{ name: 'Bash', id: 'toolu_b1', input: { command: 'touch ran.txt' } }] },
  { text: 'done' },
];

test('exit code 2 blocks the call: denial in the result, hook_response, is_error tool_result with the reason', async () => {
  const dir = tempDir({ 'hook.sh': 'cat > input.json\necho "no touching" >&2\nexit 2\n' });
  const settings = JSON.stringify({
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'bash hook.sh' }] }] },
  });
  const run = await runScripted(dir, bashTurns, [
    ...['--settings', settings, '--permission-mode', 'bypassPermissions', '--include-hook-events'],
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(existsSync(path.join(dir, 'ran.txt')), false, 'the command must not run');

  const [hook] = ofType(run.lines, 'system', 'hook_response');
  assert.ok(hook, 'a hook_response message');
  assert.equal(hook.hook_event, 'PreToolUse');
  assert.equal(hook.hook_name, 'PreToolUse:Bash');
  assert.equal(hook.exit_code, 2);
  assert.equal(hook.stderr, 'no touching\n');
  assert.match(hook.hook_id, /^[0-9a-f-]{36}$/);

  const result = toolResults(run.lines).get('toolu_b1')!;
  assert.equal(result.is_error, true);
  assert.equal(result.content, 'PreToolUse:Bash hook error: [bash hook.sh]: no touching\n');

  const final = run.lines.at(-1)!;
  assert.equal(final.type, 'result');
  assert.equal(final.permission_denials.length, 1);
  assert.deepEqual(final.permission_denials[0].tool_input, { command: 'touch ran.txt' });
  assert.equal(final.permission_denials[0].tool_use_id, 'toolu_b1');

  // The hook got Claude Code's input on stdin.
  const input = JSON.parse(
    await import('node:fs/promises').then((fs) => fs.readFile(path.join(dir, 'input.json'), 'utf8')),
  );
  assert.equal(input.hook_event_name, 'PreToolUse');
  assert.equal(input.tool_name, 'Bash');
  assert.deepEqual(input.tool_input, { command: 'touch ran.txt' });
  assert.equal(input.tool_use_id, 'toolu_b1');
  assert.equal(input.cwd, dir);
  assert.equal(input.session_id, final.session_id);
});

test('JSON permissionDecision "deny" from a settings file; the matcher skips other tools', async () => {
  const dir = tempDir();
  const out = {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'policy says no',
    },
  };
  writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: 'Bash|Write', hooks: [{ type: 'command', command: `echo '${JSON.stringify(out)}'` }] }],
      },
    }),
  );
  const turns = [
    {
      tool_calls: [
        { name: 'Glob', id: 'toolu_g', input: { pattern: '*.json' } },
        { name: 'Bash', id: 'toolu_b', input: { command: 'touch ran.txt' } },
      ],
    },
    { text: 'done' },
  ];
  const run = await runScripted(dir, turns, [
    ...['--settings', 'settings.json', '--permission-mode', 'bypassPermissions', '--include-hook-events'],
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(ofType(run.lines, 'system', 'hook_response').length, 1, 'only the Bash call matched');
  const results = toolResults(run.lines);
  assert.notEqual(results.get('toolu_g')!.is_error, true);
  assert.match(results.get('toolu_b')!.content, /policy says no/);
  assert.equal(existsSync(path.join(dir, 'ran.txt')), false);
  assert.deepEqual(
    run.lines.at(-1)!.permission_denials.map((d: any) => d.tool_use_id),
    ['toolu_b'],
  );
});

test('bad settings: a clear usage error, exit 1, no stack trace', async () => {
  const dir = tempDir();
  const bad = await runScripted(dir, bashTurns, ['--settings', '{"hooks": {"BeforeTool": []}}']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /unknown hook event "BeforeTool"/);
  assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/);
  const missing = await runScripted(dir, bashTurns, ['--settings', 'nope.json']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--settings .*nope\.json: no such file/);
});
