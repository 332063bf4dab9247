/**
 * Claude Code's answer to a 400 on its default betas (src/model/beta-fallback.ts), through the real Anthropic
 * provider against a local server: the betas of each request in order, as the suite's fake API recorded Claude Code
 * 2.1.332's (docs/compat.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/model/anthropic.ts';
import { BETAS, claudeCodeRequest } from '../../src/model/claude-code-request.ts';
import { fallbackSteps } from '../../src/model/beta-fallback.ts';
import { ModelError } from '../../src/model/errors.ts';
import type { ModelRequest } from '../../src/model/types.ts';
import {
  anthropicBlock,
  anthropicStream,
  collect,
  modelRequest,
  startFakeServer,
  type RecordedRequest,
  type Reply,
} from './fake-servers.ts';

const B = BETAS;
const refused = (message = 'bad'): Reply => ({
  kind: 'json',
  status: 400,
  body: { type: 'error', error: { type: 'invalid_request_error', message } },
});
const ok: Reply = {
  kind: 'sse',
  frames: anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'ok' }])],
    'end_turn',
  ),
};

/** A session's provider against a server answering `replies` in order (the last one from then on). */
async function session(replies: Reply[]) {
  const server = await startFakeServer(() => replies[Math.min(server.requests.length - 1, replies.length - 1)]!);
  const provider = new AnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.url, apiKeySource: 'user' });
  const request = (overrides: Partial<ModelRequest> = {}) =>
    modelRequest('claude-sonnet-4-6', { ...claudeCodeRequest('claude-sonnet-4-6', { env: {} }), ...overrides });
  const send = (overrides?: Partial<ModelRequest>) => collect(provider.stream(request(overrides)));
  return { server, send, close: () => server.close() };
}

/** Each request's betas, short: the default list minus what it left out (`-ttc -display`). */
function sentWithout(requests: RecordedRequest[]): string[] {
  const all = claudeCodeRequest('claude-sonnet-4-6', { env: {} }).betas!;
  const short: Record<string, string> = {
    [B.thinkingTokenCount]: '-ttc',
    [B.thinkingDisplay]: '-display',
    [B.toolSearch]: '-atu',
    [B.effort]: '-effort',
  };
  return requests.map((r) => {
    const sent = String(r.headers['anthropic-beta']).split(',');
    return all
      .filter((beta) => !sent.includes(beta))
      .map((beta) => short[beta] ?? `-${beta}`)
      .join(' ');
  });
}

test('the order of the drops: thinking-token-count, then display, then tool search with the first two back', () => {
  assert.deepEqual(fallbackSteps([...Object.values(B)]), [
    [],
    [B.thinkingTokenCount],
    [B.thinkingTokenCount, B.thinkingDisplay],
    [B.toolSearch],
    [B.toolSearch, B.thinkingTokenCount],
    [B.toolSearch, B.thinkingTokenCount, B.thinkingDisplay],
  ]);
  assert.deepEqual(fallbackSteps([B.claudeCode]), [[]]);
  assert.deepEqual(fallbackSteps([B.claudeCode, B.thinkingTokenCount, B.toolSearch]), [
    [],
    [B.thinkingTokenCount],
    [B.toolSearch],
    [B.toolSearch, B.thinkingTokenCount],
  ]);
});

test('a 400 every time: six requests, each without what Claude Code leaves out, then the last 400', async () => {
  const { server, send, close } = await session([refused()]);
  try {
    const betas = [...claudeCodeRequest('claude-sonnet-4-6', { env: {} }).betas!, 'context-1m-2025-08-07'];
    await assert.rejects(send({ betas }), (error) => error instanceof ModelError && error.status === 400);
    // The user's own betas (--betas) stay.
    for (const r of server.requests) assert.match(String(r.headers['anthropic-beta']), /context-1m-2025-08-07$/);
    assert.deepEqual(sentWithout(server.requests), [
      '',
      '-ttc',
      '-ttc -display',
      '-atu',
      '-ttc -atu',
      '-ttc -atu -display',
    ]);
    // Without the display beta the request asks for no display either.
    assert.deepEqual(server.requests[2]!.body.thinking, { type: 'adaptive' });
    assert.deepEqual(server.requests[0]!.body.thinking, { type: 'adaptive', display: 'updates' });
  } finally {
    await close();
  }
});

test('what let a request through stays left out of the next ones', async () => {
  const { server, send, close } = await session([refused(), ok]);
  try {
    await send();
    await send();
    assert.deepEqual(sentWithout(server.requests), ['', '-ttc', '-ttc']);
  } finally {
    await close();
  }
});

test('a 400 naming a beta: sent again without it and its member, never again', async () => {
  const named = refused('Unexpected value(s) `effort-2025-11-24` for the `anthropic-beta` header.');
  const { server, send, close } = await session([named, ok]);
  try {
    await send();
    await send();
    assert.deepEqual(sentWithout(server.requests), ['', '-effort', '-effort']);
    assert.equal(server.requests[0]!.body.output_config.effort, 'high');
    assert.equal(server.requests[1]!.body.output_config, undefined);
  } finally {
    await close();
  }
});

test('a prompt too long is not answered with the fallback; a request without it is sent once', async () => {
  const { server, send, close } = await session([refused('prompt is too long: 300000 tokens > 200000 maximum')]);
  try {
    await assert.rejects(send());
    assert.equal(server.requests.length, 1);
    await assert.rejects(send({ betaFallback: false }));
    assert.equal(server.requests.length, 2);
  } finally {
    await close();
  }
});
