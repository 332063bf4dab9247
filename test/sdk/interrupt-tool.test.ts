import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, promptStream, sdkOptions, textOf } from './helpers.ts';

test('interrupt() while a tool runs kills it and ends the turn with aborted_tools; the next prompt runs', async () => {
  const options = sdkOptions(
    [
      { tool_calls: [{ name: 'Bash', id: 'toolu_sleep', input: { command: 'sleep 5' } }] },
      { text: 'after the interrupt' },
    ],
    { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true },
  );
  const prompts = promptStream();
  prompts.push('run the slow command');
  const q = query({ prompt: prompts, options });
  const messages: SDKMessage[] = [];
  let interruptedAt = 0;
  for await (const message of q) {
    messages.push(message);
    if (message.type === 'assistant' && !interruptedAt) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      interruptedAt = Date.now();
      await q.interrupt();
    }
    if (message.type === 'result' && messages.filter((m) => m.type === 'result').length === 1) {
      assert.ok(Date.now() - interruptedAt < 2000, 'the tool stopped at once, not after its 5 s');
      prompts.push('go on');
      prompts.end();
    }
  }

  assert.deepEqual(kinds(messages), [
    'system/init',
    'assistant',
    'user',
    'user',
    'result',
    'system/init',
    'assistant',
    'result',
  ]);
  const [init, toolUse, toolResult, interrupted, aborted, , answer, done] = messages;
  assert.equal(init!.type === 'system' && init.subtype === 'init' && init.permissionMode, 'bypassPermissions');
  const use = (toolUse as { message: { content: Array<{ type: string; id?: string }> } }).message.content[0]!;
  assert.equal(use.type, 'tool_use');
  const block = (
    toolResult as { message: { content: Array<{ type: string; tool_use_id: string; is_error: boolean }> } }
  ).message.content[0]!;
  assert.equal(block.type, 'tool_result');
  assert.equal(block.tool_use_id, 'toolu_sleep');
  assert.equal(block.is_error, true);
  assert.equal(textOf(interrupted), '[Request interrupted by user for tool use]');
  assert.ok(aborted!.type === 'result' && aborted.subtype === 'error_during_execution');
  assert.equal(aborted.terminal_reason, 'aborted_tools');
  assert.equal(textOf(answer), 'after the interrupt');
  assert.ok(done!.type === 'result' && done.subtype === 'success');
});
