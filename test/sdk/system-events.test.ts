/**
 * The system messages Claude Code sends about work in progress, through the REAL official SDK:
 * hook_started/hook_response (includeHookEvents), task_started/task_progress/task_notification
 * for a subagent, permission_denied for a call denied without asking anyone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { sdkOptions } from './helpers.ts';

async function collect(prompt: string, options: ReturnType<typeof sdkOptions>): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  try {
    for await (const message of query({ prompt, options })) messages.push(message);
  } catch (error) {
    if (!/error result/.test((error as Error).message)) throw error;
  }
  return messages;
}

const system = (messages: SDKMessage[], subtype: string) =>
  messages.filter(
    (m): m is Extract<SDKMessage, { type: 'system' }> & Record<string, any> =>
      m.type === 'system' && m.subtype === subtype,
  );

test('a subagent reports task_started, a task_progress per tool call, then task_notification, all under the Task call id', async () => {
  const options = sdkOptions([
    {
      tool_calls: [
        {
          name: 'Task',
          id: 'toolu_task',
          input: { description: 'Look around', prompt: 'list files', subagent_type: 'general-purpose' },
        },
      ],
    },
    { tool_calls: [{ name: 'Glob', input: { pattern: '*' } }] },
    { tool_calls: [{ name: 'Glob', input: { pattern: '*.json' } }] },
    { text: 'found script.json' },
    { text: 'the helper found script.json' },
  ]);
  const messages = await collect('look around', options);
  const tasks = messages.filter((m) => m.type === 'system' && m.subtype.startsWith('task_')) as Array<
    Record<string, any>
  >;
  assert.deepEqual(
    tasks.map((t) => t.subtype),
    ['task_started', 'task_progress', 'task_progress', 'task_notification'],
  );
  for (const t of tasks) assert.equal(t.task_id, 'toolu_task');
  assert.equal(tasks[0]!.description, 'Look around');
  assert.equal(tasks[0]!.subagent_type, 'general-purpose');
  assert.equal(tasks[0]!.prompt, 'list files');
  assert.deepEqual(
    tasks.slice(1, 3).map((t) => [t.usage.tool_uses, t.last_tool_name]),
    [
      [1, 'Glob'],
      [2, 'Glob'],
    ],
  );
  assert.equal(tasks[3]!.status, 'completed');
  assert.equal(tasks[3]!.summary, 'found script.json');
  assert.equal(tasks[3]!.usage.tool_uses, 2);
  // task_notification comes before the Task call's result.
  const notified = messages.indexOf(tasks[3] as SDKMessage);
  const taskResult = messages.findIndex(
    (m) =>
      m.type === 'user' && m.parent_tool_use_id === null && JSON.stringify(m.message.content).includes('toolu_task'),
  );
  assert.ok(notified < taskResult);
});

test('includeHookEvents: hook_started before each hook, hook_response after, with the same hook_id', async () => {
  const options = sdkOptions([{ tool_calls: [{ name: 'Glob', input: { pattern: '*' } }] }, { text: 'done' }], {
    includeHookEvents: true,
    settings: { hooks: { PreToolUse: [{ matcher: 'Glob', hooks: [{ type: 'command', command: 'echo checked' }] }] } },
  });
  const messages = await collect('go', options);
  const started = system(messages, 'hook_started');
  const responses = system(messages, 'hook_response');
  assert.equal(started.length, 1);
  assert.equal(started[0]!.hook_name, 'PreToolUse:Glob');
  assert.equal(started[0]!.hook_id, responses[0]!.hook_id);
  assert.ok(messages.indexOf(started[0]!) < messages.indexOf(responses[0]!));
  const without = await collect(
    'go',
    sdkOptions([{ text: 'done' }], {
      settings: { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'true' }] }] } },
    }),
  );
  assert.equal(system(without, 'hook_started').length, 0, 'only with includeHookEvents');
  // As Claude Code 2.1.332: without includeHookEvents, only SessionStart hooks' responses are in the stream.
  assert.equal(system(without, 'hook_response').length, 0);
});

test("permission_denied for calls denied without asking (dontAsk, a deny rule), before their tool results; none for the client's own answer", async () => {
  const options = sdkOptions(
    [
      {
        tool_calls: [
          { name: 'Bash', id: 'toolu_bash', input: { command: 'touch x' } },
          { name: 'Write', id: 'toolu_write', input: { file_path: 'y.txt', content: 'y' } },
        ],
      },
      { text: 'both denied' },
    ],
    { permissionMode: 'dontAsk', disallowedTools: ['Bash(touch:*)'] },
  );
  const messages = await collect('go', options);
  const denied = system(messages, 'permission_denied');
  assert.deepEqual(
    denied.map((d) => [d.tool_name, d.tool_use_id, d.decision_reason_type]),
    [
      ['Bash', 'toolu_bash', 'rule'],
      ['Write', 'toolu_write', 'mode'],
    ],
  );
  assert.match(denied[0]!.message, /denied by the rule Bash\(touch:\*\)/);
  for (const d of denied) {
    const result = messages.findIndex(
      (m) => m.type === 'user' && JSON.stringify(m.message.content).includes(d.tool_use_id),
    );
    assert.ok(messages.indexOf(d) < result, 'announced before its tool result');
  }
  const result = messages.at(-1);
  assert.ok(result?.type === 'result');
  assert.deepEqual(
    result.permission_denials.map((d) => d.tool_use_id),
    ['toolu_bash', 'toolu_write'],
  );

  const asked = sdkOptions([{ tool_calls: [{ name: 'Bash', input: { command: 'touch x' } }] }, { text: 'ok' }], {
    canUseTool: async () => ({ behavior: 'deny', message: 'no' }),
  });
  assert.equal(system(await collect('go', asked), 'permission_denied').length, 0);
});
