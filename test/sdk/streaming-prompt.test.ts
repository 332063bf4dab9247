import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, sdkOptions, textOf } from './helpers.ts';

test('three streamed prompts all run although the iterable (stdin) ends before the first finishes', async () => {
  const options = sdkOptions([{ text: 'one', delay_ms: 20, chunk_size: 1 }, { text: 'two' }, { text: 'three' }]);
  let ended = false;
  async function* prompts(): AsyncGenerator<SDKUserMessage> {
    for (const text of ['first', 'second', 'third']) {
      yield { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' };
    }
    ended = true;
  }
  const messages: SDKMessage[] = [];
  let endedBeforeFirstResult: boolean | undefined;
  for await (const message of query({ prompt: prompts(), options })) {
    if (message.type === 'result' && endedBeforeFirstResult === undefined) endedBeforeFirstResult = ended;
    messages.push(message);
  }

  assert.equal(endedBeforeFirstResult, true);
  assert.deepEqual(kinds(messages), [
    'system/init',
    'assistant',
    'result',
    'system/init',
    'assistant',
    'result',
    'system/init',
    'assistant',
    'result',
  ]);
  const results = messages.filter((m) => m.type === 'result');
  assert.deepEqual(
    results.map((r) => r.type === 'result' && r.subtype === 'success' && r.result),
    ['one', 'two', 'three'],
  );
  assert.deepEqual(messages.filter((m) => m.type === 'assistant').map(textOf), ['one', 'two', 'three']);
});
