import { test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { AnthropicProvider, textDeltaEvent } from '../../src/model/anthropic.ts';
import type { ModelRequest } from '../../src/model/types.ts';
import type { StreamEvent } from '../../src/messages/types.ts';
import {
  anthropicBlock,
  assertAbortMidStream,
  assertCutStreamFails,
  assertRateLimited,
  anthropicFrame,
  anthropicStream,
  collect,
  joinDeltas,
  modelErrorOf,
  modelRequest,
  mutations,
  startFakeServer,
  withServer,
  within,
  type FakeServer,
  type Reply,
} from './fake-servers.ts';

const KEY = 'sk-ant-test-0123456789abcdef';

function provider(server: FakeServer): AnthropicProvider {
  return new AnthropicProvider({
    apiKey: KEY,
    baseUrl: server.url,
    apiKeySource: 'ANTHROPIC_API_KEY',
    defaultHeaders: { 'x-test': 'yes' },
  });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return modelRequest('claude-sonnet-4-6', overrides);
}

const modelError = modelErrorOf(KEY);

test('text answer: events normalised, ping dropped, usage and stop_reason', async () => {
  const frames = anthropicStream(
    [
      anthropicBlock(0, { type: 'text', text: '' }, [
        { type: 'text_delta', text: 'Hel' },
        { type: 'text_delta', text: 'lo!' },
      ]),
    ],
    'end_turn',
  );
  await withServer({ kind: 'sse', frames }, async (server) => {
    const events = await collect(provider(server).stream(request()));
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    const start = events[0] as Extract<StreamEvent, { type: 'message_start' }>;
    assert.equal(start.message.id, 'msg_01Test');
    assert.equal(start.message.model, 'claude-sonnet-4-5-20250929');
    assert.equal(start.message.usage.input_tokens, 12);
    assert.equal(start.message.usage.service_tier, 'standard');
    assert.equal(start.message.container, null);
    assert.equal(start.message.context_management, null);
    assert.equal(start.message.diagnostics, null);
    assert.equal(start.message.stop_details, null);
    assert.equal(joinDeltas(events, 0), 'Hello!');
    const delta = events[5] as Extract<StreamEvent, { type: 'message_delta' }>;
    assert.equal(delta.delta.stop_reason, 'end_turn');
    assert.equal(delta.usage.output_tokens, 7);
    assert.deepEqual(delta.delta, {
      stop_reason: 'end_turn',
      stop_sequence: null,
      container: null,
      stop_details: null,
    });

    const [received] = server.requests;
    assert.equal(received.path, '/v1/messages');
    // SDK 1.x sends the key as a bearer token (0.x used x-api-key).
    assert.ok(received.headers['x-api-key'] === KEY || received.headers.authorization === `Bearer ${KEY}`);
    assert.equal(received.headers['x-test'], 'yes');
    assert.equal(received.body.model, 'claude-sonnet-4-6');
    assert.equal(received.body.max_tokens, 1024);
    assert.equal(received.body.system, 'Be brief.');
    assert.equal(received.body.stream, true);
    assert.deepEqual(received.body.messages, [{ role: 'user', content: 'Hi' }]);
    assert.equal('tools' in received.body, false);
    assert.equal('thinking' in received.body, false);
  });
});

test('tool call: input_json_delta joins to the input; history and tools sent as given', async () => {
  const frames = anthropicStream(
    [
      anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Reading.' }]),
      anthropicBlock(1, { type: 'tool_use', id: 'toolu_2', name: 'Read', input: {} }, [
        { type: 'input_json_delta', partial_json: '' },
        { type: 'input_json_delta', partial_json: '{"file_path": "/tmp/' },
        { type: 'input_json_delta', partial_json: 'b.txt"}' },
      ]),
    ],
    'tool_use',
  );
  const tools = [
    {
      name: 'Read',
      description: 'Reads a file',
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    },
  ];
  const messages: ModelRequest['messages'] = [
    { role: 'user', content: 'Read a.txt' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/tmp/a.txt' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'contents of a' }] },
  ];
  await withServer({ kind: 'sse', frames }, async (server) => {
    const events = await collect(provider(server).stream(request({ system: '', tools, messages })));
    const start = events.find((e) => e.type === 'content_block_start' && e.index === 1);
    assert.deepEqual(start, {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_2', name: 'Read', input: {} },
    });
    assert.deepEqual(JSON.parse(joinDeltas(events, 1)), { file_path: '/tmp/b.txt' });
    const delta = events.find((e) => e.type === 'message_delta');
    assert.equal(delta?.type === 'message_delta' && delta.delta.stop_reason, 'tool_use');

    const { body } = server.requests[0];
    assert.equal('system' in body, false, 'an empty system prompt is omitted');
    assert.deepEqual(body.tools, tools);
    assert.deepEqual(body.messages, messages);
  });
});

test('thinking: thinking and signature deltas; unknown blocks dropped and indices kept sequential', async () => {
  const frames = anthropicStream(
    [
      anthropicBlock(0, { type: 'thinking', thinking: '', signature: '' }, [
        { type: 'thinking_delta', thinking: 'Let me ' },
        { type: 'thinking_delta', thinking: 'think.' },
        { type: 'signature_delta', signature: 'sig==' },
      ]),
      anthropicBlock(1, { type: 'redacted_thinking', data: 'opaque' }, []),
      anthropicBlock(2, { type: 'text', text: '' }, [
        { type: 'text_delta', text: '42' },
        { type: 'citations_delta', citation: {} },
      ]),
    ],
    'end_turn',
  );
  await withServer({ kind: 'sse', frames }, async (server) => {
    const events = await collect(provider(server).stream(request({ thinkingBudgetTokens: 2048, maxTokens: 4096 })));
    assert.equal(joinDeltas(events, 0), 'Let me think.');
    assert.ok(
      events.some(
        (e) =>
          e.type === 'content_block_delta' &&
          e.index === 0 &&
          e.delta.type === 'signature_delta' &&
          e.delta.signature === 'sig==',
      ),
    );
    const starts = events.flatMap((e) => (e.type === 'content_block_start' ? [[e.index, e.content_block.type]] : []));
    assert.deepEqual(starts, [
      [0, 'thinking'],
      [1, 'text'],
    ]);
    assert.equal(joinDeltas(events, 1), '42');
    assert.deepEqual(
      events.flatMap((e) => (e.type === 'content_block_stop' ? [e.index] : [])),
      [0, 1],
    );
    assert.deepEqual(server.requests[0].body.thinking, { type: 'enabled', budget_tokens: 2048 });
  });
});

test('429 with retry-after → rate_limit, retryable, retryAfterMs', async () => {
  const body = {
    type: 'error',
    error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit.' },
  };
  await assertRateLimited(
    body,
    KEY,
    (server) => provider(server).stream(request()),
    (error) => assert.match(error.message, /rate limit/),
  );
});

test('500 → server_error', async () => {
  const body = { type: 'error', error: { type: 'api_error', message: 'Internal server error' } };
  await withServer({ kind: 'json', status: 500, body }, async (server) => {
    await assert.rejects(
      collect(provider(server).stream(request())),
      modelError('server_error', (error) => {
        assert.equal(error.status, 500);
        assert.equal(error.retryable, true);
      }),
    );
    assert.equal(server.requests.length, 1);
  });
});

test('401 → authentication_failed, and the key never appears in the message', async () => {
  const body = { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${KEY}` } };
  await withServer({ kind: 'json', status: 401, body }, async (server) => {
    await assert.rejects(
      collect(provider(server).stream(request())),
      modelError('authentication_failed', (error) => {
        assert.equal(error.retryable, false);
        assert.match(error.message, /invalid x-api-key/);
      }),
    );
  });
});

test('an error event inside the stream → overloaded', async () => {
  const frames = [
    ...anthropicStream([], 'end_turn').slice(0, 2),
    anthropicFrame('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
  ];
  await withServer({ kind: 'sse', frames }, async (server) => {
    await assert.rejects(collect(provider(server).stream(request())), modelError('overloaded'));
  });
});

test('connection cut mid-stream → connection error, no hang', async () => {
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'partial' }])],
    'end_turn',
  ).slice(0, 4);
  await withServer({ kind: 'sse', frames, then: 'destroy' }, async (server) => {
    await assertCutStreamFails(provider(server).stream(request()), KEY);
  });
});

test('a stream that ends cleanly before message_stop → connection error', async () => {
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'partial' }])],
    'end_turn',
  ).slice(0, 4);
  await withServer({ kind: 'sse', frames, then: 'end' }, async (server) => {
    await within(
      assert.rejects(collect(provider(server).stream(request())), modelError('connection')),
      5000,
      'the truncated stream',
    );
  });
});

test('abort mid-stream → AbortError promptly, and the server sees the request closed', async () => {
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'never ending' }])],
    'end_turn',
  ).slice(0, 4);
  await withServer({ kind: 'sse', frames, then: 'hang' }, async (server) => {
    await assertAbortMidStream(
      server,
      (abortSignal) => provider(server).stream(request({ abortSignal })),
      'message_start',
    );
  });
});

test('an already-aborted signal rejects before any request', async () => {
  await withServer({ kind: 'sse', frames: [] }, async (server) => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(collect(provider(server).stream(request({ abortSignal: controller.signal }))), {
      name: 'AbortError',
    });
    assert.equal(server.requests.length, 0);
  });
});

test('unreachable server → connection error', async () => {
  const server = await startFakeServer({ kind: 'sse', frames: [] });
  await server.close();
  await within(
    assert.rejects(collect(provider(server).stream(request())), modelError('connection')),
    5000,
    'the refused connection',
  );
});

test('the request is the one the official @anthropic-ai/sdk sends: path, body and the headers the API reads', async () => {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'ok' }])],
    'end_turn',
  );
  await withServer({ kind: 'sse', frames }, async (server) => {
    const tools = [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: {} } }];
    const betas = ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'];
    const messages: ModelRequest['messages'] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello', citations: null }] },
      { role: 'user', content: [{ type: 'text', text: 'Read a file' }] },
    ];
    await collect(
      provider(server).stream(
        request({ messages, tools, betas, thinking: { type: 'enabled', budgetTokens: 2048 }, effort: 'high' }),
      ),
    );
    const sdk = new Anthropic({ apiKey: KEY, baseURL: server.url, defaultHeaders: { 'x-test': 'yes' }, maxRetries: 0 });
    const stream = await sdk.messages.create(
      {
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: messages as Anthropic.MessageParam[],
        stream: true,
        system: 'Be brief.',
        tools: tools as Anthropic.Tool[],
        thinking: { type: 'enabled', budget_tokens: 2048 },
        output_config: { effort: 'high' },
      },
      { headers: { 'anthropic-beta': betas.join(',') } },
    );
    for await (const event of stream) void event;
    const [ours, theirs] = server.requests;
    assert.equal(ours.method, theirs.method);
    assert.equal(ours.path, theirs.path);
    assert.deepEqual(ours.body, theirs.body);
    for (const header of [
      'authorization',
      'x-api-key',
      'anthropic-version',
      'anthropic-beta',
      'content-type',
      'x-test',
    ])
      assert.equal(ours.headers[header], theirs.headers[header], header);
  });
});

test('the next request reuses the connection (keep-alive), also after the answer was read only to message_stop', async () => {
  const frames = anthropicStream(
    [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'ok' }])],
    'end_turn',
  );
  await withServer({ kind: 'sse', frames }, async (server) => {
    const p = provider(server);
    for (let i = 0; i < 3; i++) await collect(p.stream(request()));
    const ports = new Set(server.requests.map((r) => r.clientPort));
    assert.equal(server.requests.length, 3);
    assert.equal(ports.size, 1, `one connection for three requests (client ports ${[...ports].join(', ')})`);
  });
});

test('the text-delta fast path reads exactly what JSON.parse reads, and leaves every other shape to it', () => {
  const read = (text: string) =>
    `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":${text}}}`;
  const rows: Array<[string, boolean]> = [
    [read('"Hello"'), true],
    [read('""'), true],
    [read(JSON.stringify('quote " brace }} backslash \\ newline \n tab \t')), true],
    [read(JSON.stringify('unicode é 中 😀 \u2028')), true],
    [read('"\\u00e9\\ud83d\\ude00"'), true],
    ['{"type":"content_block_delta","index":12345,"delta":{"type":"text_delta","text":"x"}}', true],
    ['{"type":"content_block_delta","index":123456789,"delta":{"type":"text_delta","text":"x"}}', true],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}', true],
    // Not read here: JSON.parse decides (it may throw: the stream is then malformed, as before).
    [read('"a"},"extra":{"b":"c"'), false],
    [read('"a","more":1'), false],
    [read('1'), false],
    [read('null'), false],
    [read('"unterminated'), false],
    ['{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}', false],
    ['{"type":"content_block_delta","index":1234567890,"delta":{"type":"text_delta","text":"x"}}', false],
    ['{"type":"content_block_delta","index":0}}', false],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":}}', false],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text"}}', false],
    ['}}', false],
    ['{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}', false],
    ['{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"x"}}', false],
    ['{"type":"content_block_delta","index":1e3,"delta":{"type":"text_delta","text":"x"}}', false],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}', false],
    ['{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"},"index":0}', false],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} ', false],
    ['{"type":"ping"}', false],
  ];
  for (const [data, fast] of rows) {
    // As given, and as a slice of a larger string, the kind the SSE parser hands out.
    for (const given of [data, `data: ${data}\n\n`.slice(6, -2)]) {
      const event = textDeltaEvent(given);
      assert.equal(event !== undefined, fast, data);
      if (event) assert.deepEqual(event, JSON.parse(data), data);
    }
  }
});

test('the text-delta fast path against 15,000 edited deltas (a hostile server): JSON.parse agrees with all it reads', () => {
  const bases = [
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
    '{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"a \\"q\\" \\u00e9 }}"}}',
    '{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":""}}',
  ];
  let read = 0;
  bases.forEach((base, seed) => {
    for (const data of mutations(base, 5000, seed + 1)) {
      // As the SSE parser hands it out: a slice of the network read.
      const event = textDeltaEvent(`data: ${data}\n\n`.slice(6, -2));
      if (event === undefined) continue;
      read++;
      assert.deepEqual(event, JSON.parse(data), data);
    }
  });
  // Edits inside the text (or to the index's digits) keep a delta: the fast path was taken, not only refused (the
  // seeds fix the count).
  assert.ok(read >= 300, `${read} of 15,000 read by the fast path`);
});
