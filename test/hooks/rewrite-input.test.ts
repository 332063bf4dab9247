/** A PreToolUse hook that rewrites the input: the tool runs with the new input. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/workspace.ts';
import { ofType, runScripted, toolResults } from '../helpers/agent-run.ts';

test('updatedInput from a command hook replaces the Bash command', async () => {
  const dir = tempDir();
  const out = {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { command: 'echo rewritten' },
    },
  };
  const settings = JSON.stringify({
    hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `echo '${JSON.stringify(out)}'` }] }] },
  });
  const turns = [
    { tool_calls: [{ name: 'Bash', id: 'toolu_r', input: { command: 'echo original' } }] },
    { text: 'ok' },
  ];
  // Default mode: the hook's "allow" lets Bash run without --allowedTools.
  const run = await runScripted(dir, turns, ['--settings', settings, '--include-hook-events']);
  assert.equal(run.code, 0, run.stderr);
  const result = toolResults(run.lines).get('toolu_r')!;
  assert.notEqual(result.is_error, true);
  assert.equal(result.content, 'rewritten');
  assert.equal(result.line.tool_use_result.stdout, 'rewritten');
  assert.deepEqual(run.lines.at(-1)!.permission_denials, []);
  const [hook] = ofType(run.lines, 'system', 'hook_response');
  assert.equal(hook.outcome, 'success');
  assert.equal(hook.exit_code, 0);
  assert.deepEqual(JSON.parse(hook.stdout), out);
});

test('a hook allow does not override plan mode or a deny rule', async () => {
  const dir = tempDir();
  const out = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } };
  const settings = JSON.stringify({
    hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `echo '${JSON.stringify(out)}'` }] }] },
  });
  const turns = [{ tool_calls: [{ name: 'Bash', id: 'toolu_p', input: { command: 'touch x' } }] }, { text: 'ok' }];
  const plan = await runScripted(dir, turns, ['--settings', settings, '--permission-mode', 'plan']);
  assert.match(toolResults(plan.lines).get('toolu_p')!.content, /plan mode/);
  const rule = await runScripted(dir, turns, ['--settings', settings, '--disallowedTools', 'Bash(touch:*)']);
  assert.match(toolResults(rule.lines).get('toolu_p')!.content, /denied by the rule Bash\(touch:\*\)/);
});
