import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { OpenAICompatibleProvider } from '../../src/model/openai-compatible.ts';
import type { ModelRequest } from '../../src/model/types.ts';
import type { StreamEvent } from '../../src/messages/types.ts';
import {
  OPENAI_DONE,
  assertAbortMidStream,
  assertCutStreamFails,
  assertRateLimited,
  collect,
  joinDeltas,
  modelErrorOf,
  modelRequest,
  openaiChunk,
  openaiUsage,
  withServer,
  within,
  type FakeServer,
  type Reply,
} from './fake-servers.ts';

const KEY = 'sk-proj-test-0123456789abcdef';

function provider(server: FakeServer, withKey = true): OpenAICompatibleProvider {
  return new OpenAICompatibleProvider({
    baseUrl: `${server.url}/v1`,
    apiKey: withKey ? KEY : undefined,
    apiKeySource: withKey ? 'user' : 'none',
  });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return modelRequest('gpt-4o', overrides);
}

const modelError = modelErrorOf(KEY);

const messageDelta = (events: StreamEvent[]) =>
  events.find((e) => e.type === 'message_delta') as Extract<StreamEvent, { type: 'message_delta' }>;

/** Every block starts once, is closed before the next one starts, and indices run 0, 1, 2… */
function assertWellFormed(events: StreamEvent[]): void {
  assert.equal(events[0].type, 'message_start');
  assert.deepEqual(
    events.slice(-2).map((e) => e.type),
    ['message_delta', 'message_stop'],
  );
  let open: number | undefined;
  let next = 0;
  for (const event of events) {
    if (event.type === 'content_block_start') {
      assert.equal(open, undefined, 'a block started before the previous one stopped');
      assert.equal(event.index, next++);
      open = event.index;
    } else if (event.type === 'content_block_delta') assert.equal(event.index, open);
    else if (event.type === 'content_block_stop') {
      assert.equal(event.index, open);
      open = undefined;
    }
  }
  assert.equal(open, undefined);
}

test('text answer: deltas, usage from the usage chunk, stop_reason; request shape', async () => {
  const frames = [
    openaiChunk({ role: 'assistant', content: '' }),
    openaiChunk({ content: 'Hel' }),
    openaiChunk({ content: 'lo!' }),
    openaiChunk({}, 'stop'),
    openaiUsage(20, 5, 4),
    OPENAI_DONE,
  ];
  await withServer({ kind: 'sse', frames }, async (server) => {
    const events = await collect(provider(server).stream(request()));
    assertWellFormed(events);
    const start = events[0] as Extract<StreamEvent, { type: 'message_start' }>;
    assert.equal(start.message.id, 'chatcmpl-test');
    assert.equal(start.message.model, 'gpt-4o-2024-08-06');
    assert.equal(start.message.usage.input_tokens, 0);
    assert.equal(start.message.container, null);
    assert.equal(joinDeltas(events, 0), 'Hello!');
    const delta = messageDelta(events);
    assert.deepEqual(delta.delta, {
      stop_reason: 'end_turn',
      stop_sequence: null,
      container: null,
      stop_details: null,
    });
    assert.equal(delta.usage.output_tokens, 5);
    assert.equal(delta.usage.input_tokens, 16, 'cached prompt tokens are reported as cache reads');
    assert.equal(delta.usage.cache_read_input_tokens, 4);

    const [received] = server.requests;
    assert.equal(received.path, '/v1/chat/completions');
    assert.equal(received.headers.authorization, `Bearer ${KEY}`);
    assert.equal(received.body.model, 'gpt-4o');
    assert.equal(received.body.max_tokens, 1024);
    assert.equal(received.body.stream, true);
    assert.deepEqual(received.body.stream_options, { include_usage: true });
    assert.deepEqual(received.body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    assert.equal('tools' in received.body, false);
  });
});

test('text plus two parallel tool calls; history and tools converted', async () => {
  const frames = [
    openaiChunk({ role: 'assistant', content: 'Let me look.' }),
    openaiChunk({
      tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'Read', arguments: '' } }],
    }),
    openaiChunk({ tool_calls: [{ index: 0, function: { arguments: '{"file_path":' } }] }),
    openaiChunk({ tool_calls: [{ index: 0, function: { arguments: ' "/a.txt"}' } }] }),
    openaiChunk({
      tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'Glob', arguments: '{"pattern"' } }],
    }),
    openaiChunk({ tool_calls: [{ index: 1, function: { arguments: ': "*.ts"}' } }] }),
    openaiChunk({}, 'tool_calls'),
    openaiUsage(50, 30),
    OPENAI_DONE,
  ];
  const tools = [
    {
      name: 'Read',
      description: 'Reads a file',
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
    },
  ];
  const messages: ModelRequest['messages'] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Look at this' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0=' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: '' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'call_0', name: 'Read', input: { file_path: '/z' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_0', content: [{ type: 'text', text: 'zzz' }], is_error: true },
        { type: 'text', text: 'go on' },
      ],
    },
  ];
  await withServer({ kind: 'sse', frames }, async (server) => {
    const events = await collect(provider(server).stream(request({ tools, messages })));
    assertWellFormed(events);
    const starts = events.flatMap((e) => (e.type === 'content_block_start' ? [e.content_block] : []));
    assert.deepEqual(starts, [
      { type: 'text', text: '', citations: null },
      { type: 'tool_use', id: 'call_a', name: 'Read', input: {} },
      { type: 'tool_use', id: 'call_b', name: 'Glob', input: {} },
    ]);
    assert.equal(joinDeltas(events, 0), 'Let me look.');
    assert.deepEqual(JSON.parse(joinDeltas(events, 1)), { file_path: '/a.txt' });
    assert.deepEqual(JSON.parse(joinDeltas(events, 2)), { pattern: '*.ts' });
    assert.equal(messageDelta(events).delta.stop_reason, 'tool_use');

    const { body } = server.requests[0];
    assert.deepEqual(body.tools, [
      { type: 'function', function: { name: 'Read', description: 'Reads a file', parameters: tools[0].input_schema } },
    ]);
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0=' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/z"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'Error: zzz' },
      { role: 'user', content: 'go on' },
    ]);
  });
});

test('Ollama style: whole tool calls sharing index 0 and finish_reason stop', async () => {
  const frames = [
    openaiChunk({
      role: 'assistant',
      content: '',
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'A', arguments: '{"x":1}' } }],
    }),
    openaiChunk({
      tool_calls: [{ index: 0, id: 'call_2', type: 'function', function: { name: 'B', arguments: '{}' } }],
    }),
    openaiChunk({ content: '' }, 'stop'),
    openaiUsage(10, 3),
    OPENAI_DONE,
  ];
  await withServer({ kind: 'sse', frames }, async (server) => {
    const events = await collect(provider(server).stream(request()));
    assertWellFormed(events);
    const ids = events.flatMap((e) =>
      e.type === 'content_block_start' && e.content_block.type === 'tool_use' ? [e.content_block.id] : [],
    );
    assert.deepEqual(ids, ['call_1', 'call_2']);
    assert.equal(messageDelta(events).delta.stop_reason, 'tool_use');
  });
});

test('reasoning (reasoning_content and reasoning) → a thinking block; no key → not-needed', async () => {
  const frames = [
    openaiChunk({ role: 'assistant', reasoning_content: 'Two plus ' }),
    openaiChunk({ reasoning: 'two.' }),
    openaiChunk({ content: '4' }),
    openaiChunk({}, 'length'),
    openaiUsage(8, 9),
    OPENAI_DONE,
  ];
  await withServer({ kind: 'sse', frames }, async (server) => {
    const events = await collect(
      provider(server, false).stream(request({ model: 'qwen3:8b', system: '', thinkingBudgetTokens: 8000 })),
    );
    assertWellFormed(events);
    const starts = events.flatMap((e) => (e.type === 'content_block_start' ? [e.content_block] : []));
    assert.deepEqual(starts, [
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'text', text: '', citations: null },
    ]);
    assert.equal(joinDeltas(events, 0), 'Two plus two.');
    assert.equal(joinDeltas(events, 1), '4');
    assert.equal(messageDelta(events).delta.stop_reason, 'max_tokens');
    const [received] = server.requests;
    assert.equal(received.headers.authorization, 'Bearer not-needed');
    assert.equal(received.body.reasoning_effort, 'medium');
    assert.deepEqual(received.body.messages, [{ role: 'user', content: 'Hi' }]);
  });
});

test('429 with retry-after → rate_limit, retryable, retryAfterMs', async () => {
  const body = { error: { message: 'Rate limit reached for gpt-4o', type: 'requests', code: 'rate_limit_exceeded' } };
  await assertRateLimited(body, KEY, (server) => provider(server).stream(request()));
});

test('500 → server_error', async () => {
  await withServer(
    { kind: 'json', status: 500, body: { error: { message: 'The server had an error', type: 'server_error' } } },
    async (server) => {
      await assert.rejects(
        collect(provider(server).stream(request())),
        modelError('server_error', (error) => assert.equal(error.status, 500)),
      );
      assert.equal(server.requests.length, 1);
    },
  );
});

test('401 → authentication_failed, and the key never appears in the message', async () => {
  const body = {
    error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' },
  };
  await withServer({ kind: 'json', status: 401, body }, async (server) => {
    await assert.rejects(
      collect(provider(server).stream(request())),
      modelError('authentication_failed', (error) => {
        assert.equal(error.retryable, false);
        assert.match(error.message, /Incorrect API key/);
      }),
    );
  });
});

test('connection cut mid-stream → connection error, no hang', async () => {
  const frames = [openaiChunk({ role: 'assistant', content: 'par' }), openaiChunk({ content: 'tial' })];
  await withServer({ kind: 'sse', frames, then: 'destroy' }, async (server) => {
    await assertCutStreamFails(provider(server).stream(request()), KEY);
  });
});

test('a stream that ends without a finish_reason → connection error', async () => {
  await withServer({ kind: 'sse', frames: [openaiChunk({ content: 'par' })], then: 'end' }, async (server) => {
    await within(
      assert.rejects(collect(provider(server).stream(request())), modelError('connection')),
      5000,
      'the truncated stream',
    );
  });
});

test('abort mid-stream → AbortError promptly, and the server sees the request closed', async () => {
  await withServer(
    { kind: 'sse', frames: [openaiChunk({ role: 'assistant', content: 'never ending' })], then: 'hang' },
    async (server) => {
      await assertAbortMidStream(
        server,
        (abortSignal) => provider(server).stream(request({ abortSignal })),
        'content_block_delta',
      );
    },
  );
});

test('reasoning models get max_completion_tokens instead of max_tokens', async () => {
  await withServer({ kind: 'sse', frames: [openaiChunk({ content: 'ok' }, 'stop'), OPENAI_DONE] }, async (server) => {
    await collect(provider(server).stream(request({ model: 'o4-mini' })));
    assert.equal(server.requests[0].body.max_completion_tokens, 1024);
    assert.equal('max_tokens' in server.requests[0].body, false);
  });
});

test('one signal reused over many requests collects no abort listeners', async () => {
  await withServer({ kind: 'sse', frames: [openaiChunk({ content: 'ok' }, 'stop'), OPENAI_DONE] }, async (server) => {
    const signal = new AbortController().signal;
    const p = provider(server);
    for (let i = 0; i < 12; i++) await collect(p.stream(request({ abortSignal: signal })));
    assert.equal(getEventListeners(signal, 'abort').length, 0);
  });
});

test('the request is the one the official openai package sends: path, body and the headers the API reads', async () => {
  const { default: OpenAI } = await import('openai');
  const frames = [openaiChunk({ role: 'assistant', content: 'ok' }, 'stop'), OPENAI_DONE];
  await withServer({ kind: 'sse', frames }, async (server) => {
    const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: {} } }];
    await collect(provider(server).stream(request({ tools, effort: 'low' })));
    const sdk = new OpenAI({
      apiKey: KEY,
      baseURL: `${server.url}/v1`,
      organization: null,
      project: null,
      maxRetries: 0,
    });
    const stream = await sdk.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1024,
      tools: [
        {
          type: 'function',
          function: { name: 'Read', description: 'Reads a file', parameters: tools[0]!.input_schema },
        },
      ],
      reasoning_effort: 'low',
    });
    for await (const chunk of stream) void chunk;
    const [ours, theirs] = server.requests;
    assert.equal(ours.method, theirs.method);
    assert.equal(ours.path, theirs.path);
    assert.deepEqual(ours.body, theirs.body);
    for (const header of ['authorization', 'content-type', 'openai-organization', 'openai-project'])
      assert.equal(ours.headers[header], theirs.headers[header], header);
  });
});
