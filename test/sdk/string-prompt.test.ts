import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, sdkOptions, textOf } from './helpers.ts';

test('a string prompt yields system/init, assistant, result and the iterator ends', async () => {
  const options = sdkOptions([{ text: 'Hello from the script' }]);
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'say hi', options })) messages.push(message);

  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'result']);
  const [init, assistant, result] = messages;
  assert.equal(init!.type === 'system' && init.subtype === 'init' && init.model, 'scripted');
  assert.equal(init!.type === 'system' && init.subtype === 'init' && init.cwd, options.cwd);
  assert.equal(textOf(assistant), 'Hello from the script');
  assert.ok(result!.type === 'result' && result.subtype === 'success');
  assert.equal(result.result, 'Hello from the script');
  assert.equal(result.is_error, false);
  assert.equal(result.num_turns, 1);
  assert.deepEqual(result.permission_denials, []);
  const sessionIds = new Set(messages.map((m) => m.session_id));
  assert.equal(sessionIds.size, 1);
  assert.equal(options.stderrText(), '');
});
