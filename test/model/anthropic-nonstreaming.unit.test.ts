/**
 * A 404 on a streaming request is asked once more without streaming on the Claude faces, as Claude Code 2.1.332 does
 * (src/model/anthropic-nonstreaming.ts): through the real provider against a local server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/model/anthropic.ts';
import { ModelError } from '../../src/model/errors.ts';
import type { StreamEvent } from '../../src/messages/types.ts';
import { collect, joinDeltas, modelRequest, startFakeServer, type Reply } from './fake-servers.ts';

const notFound: Reply = {
  kind: 'json',
  status: 404,
  body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-sonnet-4-6' } },
};
const whole: Reply = {
  kind: 'json',
  status: 200,
  body: {
    id: 'msg_whole',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content: [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/a' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 2 },
  },
};

async function answering(
  replies: Reply[],
  body: (send: (fallback: boolean) => Promise<StreamEvent[]>) => Promise<void>,
) {
  const server = await startFakeServer(() => replies[Math.min(server.requests.length - 1, replies.length - 1)]!);
  const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.url, apiKeySource: 'user' });
  try {
    await body((betaFallback) => collect(provider.stream(modelRequest('claude-sonnet-4-6', { betaFallback }))));
    return server.requests;
  } finally {
    await server.close();
  }
}

test('a 404 again without streaming: the second 404 is the error', async () => {
  const requests = await answering([notFound], async (send) => {
    await assert.rejects(send(true), (error) => error instanceof ModelError && error.status === 404);
  });
  assert.deepEqual(
    requests.map((r) => r.body.stream),
    [true, false],
  );
  assert.deepEqual({ ...requests[1]!.body, stream: true }, requests[0]!.body);
});

test('an answer without streaming is read as the events of its blocks', async () => {
  await answering([notFound, whole], async (send) => {
    const events = await send(true);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.equal(joinDeltas(events, 0), 'Looking.');
    assert.deepEqual(JSON.parse(joinDeltas(events, 1)), { file_path: '/a' });
    const delta = events.find((e) => e.type === 'message_delta');
    assert.equal(delta?.type === 'message_delta' && delta.delta.stop_reason, 'tool_use');
  });
});

test('outside the Claude faces a 404 is the error at once', async () => {
  const requests = await answering([notFound], async (send) => {
    await assert.rejects(send(false), (error) => error instanceof ModelError && error.status === 404);
  });
  assert.equal(requests.length, 1);
});
