import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, promptStream, sdkOptions } from './helpers.ts';

test('an unknown control subtype gets an error response naming it, and the session goes on', async () => {
  const options = sdkOptions([{ text: 'still here' }]);
  const prompts = promptStream();
  const q = query({ prompt: prompts, options });
  // `reload_skills` is a subtype agentpipe does not implement.
  const error = await q.reloadSkills().then(() => undefined, (e: Error) => e);
  assert.match(error?.message ?? '', /Unsupported control request subtype: reload_skills/);
  prompts.push('are you alive?');
  prompts.end();
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'result']);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success' && result.result === 'still here');
});
