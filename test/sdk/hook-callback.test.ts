import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type HookInput, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, sdkOptions, textOf } from './helpers.ts';

test('a PreToolUse hook callback of the SDK sees each Bash call and can block one', async () => {
  const seen: Array<{ event: string; tool: unknown; input: unknown; toolUseId: string | undefined }> = [];
  const options = sdkOptions(
    [
      {
        tool_calls: [
          { name: 'Bash', id: 'toolu_ok', input: { command: 'echo allowed' } },
          { name: 'Bash', id: 'toolu_blocked', input: { command: 'echo blocked' } },
        ],
      },
      { text: 'hooks done' },
    ],
    {
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              async (input: HookInput, toolUseId) => {
                const pre = input as HookInput & { tool_name: string; tool_input: { command: string } };
                seen.push({ event: input.hook_event_name, tool: pre.tool_name, input: pre.tool_input, toolUseId });
                if (pre.tool_input.command === 'echo blocked') {
                  return {
                    hookSpecificOutput: {
                      hookEventName: 'PreToolUse',
                      permissionDecision: 'deny',
                      permissionDecisionReason: 'blocked by the test hook',
                    },
                  };
                }
                return { continue: true };
              },
            ],
          },
        ],
      },
    },
  );
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'run two commands', options })) messages.push(message);

  // The two read-only calls run together: their hooks may be asked in either order.
  assert.deepEqual(
    [...seen].sort((a, b) => String(a.toolUseId).localeCompare(String(b.toolUseId))),
    [
      { event: 'PreToolUse', tool: 'Bash', input: { command: 'echo blocked' }, toolUseId: 'toolu_blocked' },
      { event: 'PreToolUse', tool: 'Bash', input: { command: 'echo allowed' }, toolUseId: 'toolu_ok' },
    ],
  );
  const conversation = messages.filter((m) => !(m.type === 'system' && m.subtype !== 'init'));
  assert.deepEqual(kinds(conversation), [
    'system/init',
    'assistant',
    'assistant',
    'user',
    'user',
    'assistant',
    'result',
  ]);
  const resultFor = (id: string) =>
    conversation.find(
      (m) =>
        m.type === 'user' &&
        Array.isArray(m.message.content) &&
        m.message.content.some((b) => b.type === 'tool_result' && b.tool_use_id === id),
    );
  const [okResult, blockedResult] = [resultFor('toolu_ok'), resultFor('toolu_blocked')];
  assert.match(textOf(okResult), /allowed/);
  assert.match(textOf(blockedResult), /blocked by the test hook/);
  const result = conversation.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success' && result.result === 'hooks done');
});
