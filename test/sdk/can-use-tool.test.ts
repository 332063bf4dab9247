import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { query, type SDKMessage, type CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import { kinds, sdkOptions, textOf } from './helpers.ts';

test('canUseTool denies one call and rewrites another; permission_denials and tool results show it', async () => {
  const asked: Array<{ tool: string; input: Record<string, unknown>; toolUseID: string }> = [];
  const canUseTool: CanUseTool = async (tool, input, { toolUseID }) => {
    asked.push({ tool, input, toolUseID });
    if (input.command === 'touch denied.txt') return { behavior: 'deny', message: 'not that file' };
    return { behavior: 'allow', updatedInput: { command: 'touch rewritten.txt' } };
  };
  const options = sdkOptions(
    [
      {
        tool_calls: [
          { name: 'Bash', id: 'toolu_deny', input: { command: 'touch denied.txt' } },
          { name: 'Bash', id: 'toolu_rewrite', input: { command: 'touch original.txt' } },
        ],
      },
      { text: 'done' },
    ],
    { canUseTool },
  );
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'touch two files', options })) messages.push(message);

  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'assistant', 'user', 'user', 'assistant', 'result']);
  assert.deepEqual(asked, [
    { tool: 'Bash', input: { command: 'touch denied.txt' }, toolUseID: 'toolu_deny' },
    { tool: 'Bash', input: { command: 'touch original.txt' }, toolUseID: 'toolu_rewrite' },
  ]);
  const results = messages
    .filter((m) => m.type === 'user')
    .map((m) => (m as { message: { content: Array<{ tool_use_id: string; is_error: boolean }> } }).message.content[0]!);
  assert.equal(results[0]!.tool_use_id, 'toolu_deny');
  assert.equal(results[0]!.is_error, true);
  assert.equal(textOf(messages[3]), 'not that file');
  assert.equal(results[1]!.tool_use_id, 'toolu_rewrite');
  assert.notEqual(results[1]!.is_error, true);
  assert.equal(existsSync(path.join(options.cwd, 'denied.txt')), false);
  assert.equal(existsSync(path.join(options.cwd, 'original.txt')), false);
  assert.equal(existsSync(path.join(options.cwd, 'rewritten.txt')), true);

  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success' && result.result === 'done');
  assert.deepEqual(
    result.permission_denials.map(({ tool_name, tool_use_id, tool_input }) => ({ tool_name, tool_use_id, tool_input })),
    [{ tool_name: 'Bash', tool_use_id: 'toolu_deny', tool_input: { command: 'touch denied.txt' } }],
  );
});

test('a deny with interrupt stops the whole turn', async () => {
  const options = sdkOptions(
    [
      { tool_calls: [{ name: 'Bash', id: 'toolu_stop', input: { command: 'touch x.txt' } }] },
      { text: 'never reached' },
    ],
    { canUseTool: async () => ({ behavior: 'deny', message: 'stop everything', interrupt: true }) },
  );
  const messages: SDKMessage[] = [];
  // Like Claude Code, the CLI exits 1 after an error result; the SDK then throws with its text.
  await assert.rejects(async () => {
    for await (const message of query({ prompt: 'touch', options })) messages.push(message);
  }, /returned an error result: \[ede_diagnostic\] result_type=user last_content_type=n\/a stop_reason=tool_use/);

  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'user', 'user', 'result']);
  // As Claude Code 2.1.332: its rejection text for the model (not the host's message), then the notice.
  const rejected = messages[2]!;
  assert.ok(rejected.type === 'user' && Array.isArray(rejected.message.content));
  assert.match(JSON.stringify(rejected.message.content[0]), /The user doesn't want to proceed with this tool use/);
  assert.equal(rejected.tool_use_result, 'User rejected tool use');
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'error_during_execution');
  assert.equal(result.terminal_reason, 'aborted_tools');
  assert.equal(result.permission_denials.length, 1);
});
