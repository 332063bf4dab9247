/**
 * Real local HTTP servers speaking the Anthropic and OpenAI streaming wire formats, for the
 * provider tests. Each request is recorded (body parsed, headers, and when its socket closed).
 */
import assert from 'node:assert/strict';
import { ModelError } from '../../src/model/errors.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamEvent } from '../../src/messages/types.ts';
import type { ModelRequest } from '../../src/model/types.ts';
import { random } from '../faults/engine.ts';

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** The client's port: equal for two requests when the second reused the first's connection. */
  clientPort: number | undefined;
  /** Resolves when the response's connection closed (finished, aborted or destroyed). */
  closed: Promise<void>;
}

/** How the server answers one request. */
export type Reply =
  | {
      kind: 'sse';
      frames: string[];
      then?: 'end' | 'destroy' | 'hang';
      delayMs?: number;
      /** Send the headers at once, before any frame (with no frames: an answer that begins and says nothing). */
      flushHeaders?: boolean;
    }
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  /** Any body with any content type (a web page where the API should be). */
  | { kind: 'page'; status: number; contentType: string; body: string };

export interface FakeServer {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a server that answers every request with `reply` (or `reply(request)`). */
export async function startFakeServer(reply: Reply | ((request: RecordedRequest) => Reply)): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
      const request: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
        clientPort: req.socket.remotePort,
        closed,
      };
      requests.push(request);
      void answer(res, typeof reply === 'function' ? reply(request) : reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function answer(res: ServerResponse, reply: Reply): Promise<void> {
  if (reply.kind === 'json') {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body));
    return;
  }
  if (reply.kind === 'page') {
    res.writeHead(reply.status, { 'content-type': reply.contentType });
    res.end(reply.body);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  if (reply.flushHeaders) res.flushHeaders();
  for (const frame of reply.frames) {
    if (res.destroyed) return;
    res.write(frame);
    if (reply.delayMs) await sleep(reply.delayMs);
  }
  const then = reply.then ?? 'end';
  if (then === 'end') res.end();
  else if (then === 'destroy') {
    await sleep(20); // let the frames reach the client first
    res.socket?.destroy();
  }
  // 'hang': keep the stream open until the client goes away.
}

/** One Anthropic SSE frame: `event: <type>\ndata: {...}\n\n`. */
export function anthropicFrame(type: string, data: Record<string, unknown> = {}): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** A content block as frames: start, one delta per piece, stop. */
export function anthropicBlock(
  index: number,
  block: Record<string, unknown>,
  deltas: Array<Record<string, unknown>>,
): string[] {
  return [
    anthropicFrame('content_block_start', { index, content_block: block }),
    ...deltas.map((delta) => anthropicFrame('content_block_delta', { index, delta })),
    anthropicFrame('content_block_stop', { index }),
  ];
}

/** The `message_start` frame of an answer (model claude-sonnet-4-5): its id and input tokens. */
export function anthropicStart(id: string, inputTokens: number, outputTokens = 1): string {
  return anthropicFrame('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    },
  });
}

/** A whole Anthropic message stream around `blocks`, with a ping after message_start. */
export function anthropicStream(
  blocks: string[][],
  stopReason: string,
  usage = { input_tokens: 12, output_tokens: 7 },
): string[] {
  return [
    anthropicFrame('message_start', {
      message: {
        id: 'msg_01Test',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          service_tier: 'standard',
        },
      },
    }),
    anthropicFrame('ping'),
    ...blocks.flat(),
    anthropicFrame('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    anthropicFrame('message_stop'),
  ];
}

/** One OpenAI SSE frame: `data: {...}\n\n`. */
export function openaiFrame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** A chat.completion.chunk frame with one choice carrying `delta`. */
export function openaiChunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return openaiFrame({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o-2024-08-06',
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
}

/** The final usage chunk (empty choices), as sent with `stream_options.include_usage`. */
export function openaiUsage(prompt: number, completion: number, cached = 0): string {
  return openaiFrame({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o-2024-08-06',
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached },
    },
  });
}

export const OPENAI_DONE = 'data: [DONE]\n\n';

/** A request to `model`: the system prompt "Be brief.", the user's "Hi", no tools, 1024 tokens; then `overrides`. */
export function modelRequest(model: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'Hi' }],
    tools: [],
    maxTokens: 1024,
    abortSignal: new AbortController().signal,
    ...overrides,
  };
}

/** Drains a provider stream. */
export async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Joins the deltas of block `index` (text, thinking or input JSON). */
export function joinDeltas(events: StreamEvent[], index: number): string {
  let out = '';
  for (const event of events) {
    if (event.type !== 'content_block_delta' || event.index !== index) continue;
    const d = event.delta;
    out +=
      d.type === 'text_delta'
        ? d.text
        : d.type === 'thinking_delta'
          ? d.thinking
          : d.type === 'input_json_delta'
            ? d.partial_json
            : '';
  }
  return out;
}

/** Resolves with what `promise` settled to, or rejects after `ms` (so a hang fails the test instead of stalling it). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `body` against a fresh fake server and closes it afterwards. */
export async function withServer(reply: Reply, body: (server: FakeServer) => Promise<void>): Promise<void> {
  const server = await startFakeServer(reply);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

/** An `assert.rejects` checker: a ModelError of `kind` whose message does not contain `key`. */
export function modelErrorOf(key: string) {
  return (kind: string, check?: (error: ModelError) => void) =>
    (error: unknown): boolean => {
      assert.ok(ModelError.isInstance(error), `expected a ModelError, got ${String(error)}`);
      assert.equal(error.kind, kind, error.message);
      assert.ok(!error.message.includes(key), 'the message must not contain the key');
      check?.(error);
      return true;
    };
}

/**
 * Reads `stream` while the fake server cuts the connection after its first frames: it fails with a
 * retryable connection error (without `key` in its message) within 5 s, after message_start.
 */
export async function assertCutStreamFails(stream: AsyncIterable<StreamEvent>, key: string): Promise<void> {
  const seen: StreamEvent[] = [];
  const run = (async () => {
    for await (const event of stream) seen.push(event);
  })();
  await within(
    assert.rejects(
      run,
      modelErrorOf(key)('connection', (error) => assert.equal(error.retryable, true)),
    ),
    5000,
    'the cut stream',
  );
  assert.equal(seen[0]?.type, 'message_start');
}

/**
 * Reads `stream(signal)` from a server that hangs after its first frames and aborts at the first
 * `abortOn` event: it rejects with an AbortError (not a ModelError) within 1 s of the abort, and the
 * server sees the request closed within 2 s.
 */
export async function assertAbortMidStream(
  server: FakeServer,
  stream: (signal: AbortSignal) => AsyncIterable<StreamEvent>,
  abortOn: StreamEvent['type'],
): Promise<void> {
  const controller = new AbortController();
  let abortedAt = 0;
  const run = (async () => {
    for await (const event of stream(controller.signal)) {
      if (event.type === abortOn) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
  })();
  await within(
    assert.rejects(run, (error: unknown) => {
      assert.equal((error as Error).name, 'AbortError');
      assert.equal(ModelError.isInstance(error), false);
      return true;
    }),
    1000,
    'the aborted stream',
  );
  assert.ok(abortedAt > 0 && Date.now() - abortedAt < 1000);
  await within(server.requests[0].closed, 2000, 'the server-side close');
}

/**
 * A 429 reply with `body` and `retry-after: 2` to the request of `stream(server)`: a retryable
 * rate_limit ModelError (status 429, retryAfterMs 2000, without `key`, then `check`), and only
 * the one request (the provider's SDK must not retry on its own).
 */
export async function assertRateLimited(
  body: unknown,
  key: string,
  stream: (server: FakeServer) => AsyncIterable<StreamEvent>,
  check?: (error: ModelError) => void,
): Promise<void> {
  await withServer({ kind: 'json', status: 429, body, headers: { 'retry-after': '2' } }, async (server) => {
    await assert.rejects(
      collect(stream(server)),
      modelErrorOf(key)('rate_limit', (error) => {
        assert.equal(error.status, 429);
        assert.equal(error.retryable, true);
        assert.equal(error.retryAfterMs, 2000);
        check?.(error);
      }),
    );
    assert.equal(server.requests.length, 1, 'the SDK must not retry on its own');
  });
}

/** Characters that matter to JSON, and some that do not: what a hostile or broken server's edits are made of. */
const EDITS = [
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '0',
  '1',
  '9',
  '-',
  'e',
  '.',
  ' ',
  '\n',
  'x',
  '\u2028',
  '\u0000',
];

/**
 * `count` variants of `text` from `seed` (the same seed, the same variants), each with one to three edits at random
 * places: a character of EDITS inserted, one deleted, or one replaced. For tests that a fast path reading server data
 * reads exactly what JSON.parse reads, or leaves it alone.
 */
export function mutations(text: string, count: number, seed: number): string[] {
  const rnd = random(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  return Array.from({ length: count }, () => {
    let variant = text;
    for (let edits = 1 + pick(3); edits > 0; edits--) {
      const at = pick(variant.length + 1);
      const edit = EDITS[pick(EDITS.length)]!;
      const kind = pick(3);
      if (kind === 0) variant = variant.slice(0, at) + edit + variant.slice(at);
      else if (kind === 1) variant = variant.slice(0, at) + variant.slice(at + 1);
      else variant = variant.slice(0, at) + edit + variant.slice(at + 1);
    }
    return variant;
  });
}
