/**
 * system/permission_denied as Claude Code sends it (issue 14): for calls denied without asking
 * (a deny rule on the tool, the mode), but not for a file tool's call refused by a path-scoped deny
 * rule, which Claude Code settles before any permission surface (sdk.d.ts,
 * SDKPermissionDeniedMessage); result.permission_denials records both.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions } from '../sdk/helpers.ts';

test('a path-scoped deny rule on Read sends no permission_denied; a Bash deny rule does; both are in permission_denials', async () => {
  const options = sdkOptions(
    [
      {
        tool_calls: [
          { name: 'Read', id: 'toolu_secret', input: { file_path: 'secret/key.txt' } },
          { name: 'Bash', id: 'toolu_bash', input: { command: 'touch x' } },
        ],
      },
      { text: 'both denied' },
    ],
    { disallowedTools: ['Read(./secret/**)', 'Bash(touch:*)'] },
  );
  const messages: SDKMessage[] = [];
  for await (const m of query({ prompt: 'go', options })) messages.push(m);
  const denied = messages.filter((m) => m.type === 'system' && m.subtype === 'permission_denied');
  assert.deepEqual(
    denied.map((d) =>
      d.type === 'system' && d.subtype === 'permission_denied' ? [d.tool_use_id, d.decision_reason_type] : [],
    ),
    // Claude Code 2.1.332's type for a Bash deny rule (the compat suite's permissions/deny-rule-bash).
    [['toolu_bash', 'subcommandResults']],
  );
  const result = messages.at(-1);
  assert.ok(result?.type === 'result' && result.subtype === 'success');
  assert.deepEqual(result.permission_denials.map((d) => d.tool_use_id).sort(), ['toolu_bash', 'toolu_secret']);
  const refused = messages.flatMap((m) =>
    m.type === 'user' && Array.isArray(m.message.content) ? m.message.content : [],
  );
  assert.ok(refused.some((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_secret' && b.is_error === true));
});
