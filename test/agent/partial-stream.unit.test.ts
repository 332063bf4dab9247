/**
 * The stream a client sees beside the assistant messages (src/agent/partial-stream.ts, src/model/wire-event.ts): the
 * Anthropic API's own events in `stream_event`, the response's id on each, `ttft_ms` and the thinking display on
 * `message_start`, and `system/thinking_tokens` before each thinking delta, as Claude Code 2.1.332 sends them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/model/anthropic.ts';
import { wireOf } from '../../src/model/wire-event.ts';
import { PartialStream, thinkingDisplayOf } from '../../src/agent/partial-stream.ts';
import type { StreamEvent } from '../../src/messages/types.ts';
import { anthropicBlock, anthropicStream, collect, modelRequest, withServer } from '../model/fake-servers.ts';

const thinkingThenText = anthropicStream(
  [
    anthropicBlock(0, { type: 'thinking', thinking: '', signature: '' }, [
      { type: 'thinking_delta', thinking: 'abcdefgh' },
      { type: 'thinking_delta', thinking: 'ijklmnop' },
      { type: 'signature_delta', signature: 'sig' },
    ]),
    anthropicBlock(1, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'hi' }]),
  ],
  'end_turn',
);

async function events(): Promise<StreamEvent[]> {
  let got: StreamEvent[] = [];
  await withServer({ kind: 'sse', frames: thinkingThenText }, async (server) => {
    const provider = new AnthropicProvider({
      apiKey: 'sk-ant-test',
      baseUrl: server.url,
      apiKeySource: 'ANTHROPIC_API_KEY',
    });
    got = await collect(provider.stream(modelRequest('claude-sonnet-4-6')));
  });
  return got;
}

test('the Anthropic provider keeps the API event as sent for stream_event, the normalised one for the loop', async () => {
  const got = await events();
  const start = got[0]!;
  assert.equal(start.type, 'message_start');
  // The loop's: every member, null where the API sent none.
  assert.equal((start as { message: { container?: null } }).message.container, null);
  // The client's: what the fake API wrote, member for member.
  const wire = wireOf(start) as unknown as { message: Record<string, unknown> };
  assert.equal('container' in wire.message, false);
  assert.deepEqual(wireOf(got[1]!), {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  });
  assert.deepEqual(wireOf(got[2]!), {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'thinking_delta', thinking: 'abcdefgh' },
  });
  // A text delta is its own wire form (the hot path keeps nothing beside it).
  const text = got.find((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta')!;
  assert.equal(wireOf(text), text);
  // The hidden wire form is not part of the event's JSON (a tape keeps the normalised event).
  assert.match(JSON.stringify(start), /"container":null/);
});

test('PartialStream: api_message_id from message_start on, ttft_ms and the display there, thinking_tokens', async () => {
  const got = await events();
  const begun: string[] = [];
  const stream = new PartialStream({
    parentToolUseId: null,
    sessionId: 's',
    thinkingDisplay: thinkingDisplayOf({ type: 'adaptive', display: 'summarized' }),
    sentAt: 0,
    begun,
  });
  const out: Array<Record<string, unknown>> = [];
  for (const event of got) {
    const tokens = stream.observe(event);
    if (tokens) out.push({ ...tokens });
    out.push({ ...stream.message(event) });
  }
  assert.deepEqual(begun, ['msg_01Test']);
  const kinds = out.map((m) =>
    m.type === 'system'
      ? `tokens ${String(m.estimated_tokens)}+${String(m.estimated_tokens_delta)}`
      : (m.event as StreamEvent).type,
  );
  assert.deepEqual(kinds, [
    'message_start',
    'content_block_start',
    'tokens 2+2',
    'content_block_delta',
    'tokens 4+2',
    'content_block_delta',
    'content_block_delta',
    'content_block_stop',
    'content_block_start',
    'content_block_delta',
    'content_block_stop',
    'message_delta',
    'message_stop',
  ]);
  const events_ = out.filter((m) => m.type === 'stream_event');
  assert.ok(events_.every((m) => m.api_message_id === 'msg_01Test'));
  assert.equal(typeof events_[0]!.ttft_ms, 'number');
  assert.deepEqual(
    events_.map((m) => m.thinking_display ?? '-'),
    ['summarized', 'summarized', 'summarized', 'summarized', '-', '-', '-', '-', '-', '-', '-'],
  );
  const start = got[0] as Extract<StreamEvent, { type: 'message_start' }>;
  const thinking = stream.assistant({ type: 'thinking', thinking: 'x', signature: '' }, start.message, undefined);
  assert.equal(thinking.thinking_display, 'summarized');
  assert.ok(thinking.thinking_duration_ms! >= 1);
  assert.equal(thinking.message.stop_reason, null);
  assert.equal('container' in thinking.message, false);
  // No display asked for: none named.
  assert.equal(thinkingDisplayOf(undefined), undefined);
  assert.equal(thinkingDisplayOf({ type: 'disabled' }), undefined);
});
