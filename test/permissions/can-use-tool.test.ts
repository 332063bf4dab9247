/** The library's canUseTool (Session + SessionRunner in process): rewrite, deny, deny with interrupt. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CanUseTool } from '../../src/agent/context.ts';
import { tempDir } from '../helpers/workspace.ts';
import { ofType, runInProcess, toolResults } from '../helpers/agent-run.ts';

test('allow with updatedInput: the tool runs with the new input; the callback saw the original', async () => {
  const calls: Array<{ name: string; input: Record<string, unknown>; id: string; signal: boolean }> = [];
  const canUseTool: CanUseTool = async (name, input, { signal, toolUseId }) => {
    calls.push({ name, input, id: toolUseId, signal: signal instanceof AbortSignal });
    return { behavior: 'allow', updatedInput: { command: 'echo safe' } };
  };
  const out = await runInProcess(
    [{ tool_calls: [{ name: 'Bash', id: 'toolu_1', input: { command: 'rm -rf /tmp/nothing' } }] }, { text: 'ok' }],
    { cwd: tempDir(), canUseTool },
  );
  assert.deepEqual(calls, [{ name: 'Bash', input: { command: 'rm -rf /tmp/nothing' }, id: 'toolu_1', signal: true }]);
  assert.equal(toolResults(out).get('toolu_1')!.content, 'safe');
  assert.deepEqual(ofType(out, 'result')[0]!.permission_denials, []);
});

test('deny: an is_error result with the message, a denial, and the prompt goes on', async () => {
  const dir = tempDir();
  const out = await runInProcess(
    [
      { tool_calls: [{ name: 'Write', id: 'toolu_w', input: { file_path: 'x.txt', content: 'x' } }] },
      { text: 'understood' },
    ],
    { cwd: dir, canUseTool: async () => ({ behavior: 'deny', message: 'not in this folder' }) },
  );
  assert.equal(existsSync(path.join(dir, 'x.txt')), false);
  const result = toolResults(out).get('toolu_w')!;
  assert.equal(result.is_error, true);
  assert.equal(result.content, 'not in this folder');
  const final = ofType(out, 'result')[0]!;
  assert.equal(final.subtype, 'success');
  assert.deepEqual(final.permission_denials, [
    {
      tool_name: 'Write',
      tool_use_id: 'toolu_w',
      tool_input: { file_path: 'x.txt', content: 'x' },
    },
  ]);
  // As Claude Code 2.1.332 says how the host's answer decided it.
  const meta = out.find((m) => m.type === 'user' && 'tool_result_meta' in m && m.tool_result_meta);
  assert.deepEqual((meta as { tool_result_meta?: unknown }).tool_result_meta, [
    {
      id: 'toolu_w',
      permission_decision: { decision: 'reject', source: 'user_reject' },
      non_execution_kind: 'permission-rule',
    },
  ]);
});

test('deny with interrupt: the prompt stops (aborted_tools), later calls do not run', async () => {
  const dir = tempDir();
  const asked: string[] = [];
  const out = await runInProcess(
    [
      {
        tool_calls: [
          { name: 'Bash', id: 'toolu_a', input: { command: 'touch a' } },
          { name: 'Bash', id: 'toolu_b', input: { command: 'touch b' } },
        ],
      },
      { text: 'never reached' },
    ],
    {
      cwd: dir,
      canUseTool: async (_n, _i, { toolUseId }) => (
        asked.push(toolUseId),
        { behavior: 'deny', message: 'stop everything', interrupt: true }
      ),
    },
    ['go', 'second prompt'],
  );
  assert.deepEqual(asked, ['toolu_a']);
  assert.equal(existsSync(path.join(dir, 'a')) || existsSync(path.join(dir, 'b')), false);
  const [first, second] = ofType(out, 'result');
  assert.equal(first!.subtype, 'error_during_execution');
  assert.equal(first!.terminal_reason, 'aborted_tools');
  assert.equal(first!.permission_denials.length, 1);
  // The session is still usable: the next prompt takes the next script turn.
  assert.equal(second!.subtype, 'success');
  assert.equal(second!.result, 'never reached');
});

test('a callback that throws denies the call with the error', async () => {
  const out = await runInProcess(
    [{ tool_calls: [{ name: 'Bash', id: 'toolu_t', input: { command: 'touch z' } }] }, { text: 'ok' }],
    {
      cwd: tempDir(),
      canUseTool: async () => {
        throw new Error('policy server down');
      },
    },
  );
  assert.match(toolResults(out).get('toolu_t')!.content, /Permission check for Bash failed: policy server down/);
  assert.equal(ofType(out, 'result')[0]!.permission_denials.length, 1);
});

test('a PreToolUse hook answering "ask" sends an otherwise allowed call to canUseTool', async () => {
  const asked: string[] = [];
  await runInProcess([{ tool_calls: [{ name: 'Glob', id: 'toolu_g', input: { pattern: '*' } }] }, { text: 'ok' }], {
    cwd: tempDir(),
    hooks: {
      PreToolUse: [
        { hooks: [async () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask' } })] },
      ],
    },
    canUseTool: async (name) => (asked.push(name), { behavior: 'allow' }),
  });
  assert.deepEqual(asked, ['Glob']);
});
