import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, sdkOptions, textOf } from './helpers.ts';

test('includePartialMessages yields stream_event deltas that join to the assistant text', async () => {
  const text = 'Streaming, one small delta at a time.';
  const options = sdkOptions([{ text, chunk_size: 4 }], { includePartialMessages: true });
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'stream please', options })) messages.push(message);

  const events = messages.flatMap((m) => (m.type === 'stream_event' ? [m.event] : []));
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'message_start',
      'content_block_start',
      ...Array.from({ length: Math.ceil(text.length / 4) }, () => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  // The assistant message comes right after its block's content_block_stop, before message_delta.
  const compact = kinds(messages).filter((k, i, all) => k !== 'stream_event' || all[i - 1] !== 'stream_event');
  assert.deepEqual(compact, ['system/init', 'system/status', 'stream_event', 'assistant', 'stream_event', 'result']);
  const joined = events
    .map((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : ''))
    .join('');
  const assistant = messages.find((m) => m.type === 'assistant');
  assert.equal(joined, text);
  assert.equal(textOf(assistant), text);
  const start = events[0]!;
  assert.ok(start.type === 'message_start' && assistant?.type === 'assistant');
  assert.equal(start.message.id, assistant.message.id);
  for (const m of messages) if (m.type === 'stream_event') assert.equal(m.parent_tool_use_id, null);
});
