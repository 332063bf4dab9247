/**
 * A local server speaking the OpenAI Responses API (`POST /v1/responses`, streamed as SSE), scripted per
 * request, for the Codex harness tests: each model request takes the next reply (a text, a function call,
 * an HTTP error, or a stream that never ends). Every request is recorded with its parsed body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received. */
export interface ResponsesRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** How the server answers one model request. */
export type ResponsesReply =
  /** An assistant message, streamed in `chunks` deltas, optionally after a reasoning summary. */
  | { kind: 'text'; text: string; chunks?: number; reasoning?: string }
  /** A function call (`arguments` is JSON-encoded for the wire), optionally after some text. */
  | { kind: 'call'; name: string; arguments: Record<string, unknown>; callId?: string; text?: string }
  /** A custom (freeform) tool call, as codex's `apply_patch` may be offered. */
  | { kind: 'custom'; name: string; input: string; callId?: string }
  /** An HTTP error with an OpenAI-style error body. */
  | { kind: 'status'; status: number; message?: string }
  /** Starts a message, sends `text` as one delta, then keeps the stream open until the client leaves. */
  | { kind: 'hang'; text?: string };

/** A running fake. */
export interface ResponsesServer {
  /** http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  /** Every request, model requests and others. */
  requests: ResponsesRequest[];
  /** The bodies of the model requests (`POST .../responses`), in order. */
  readonly modelRequests: ResponsesRequest[];
  /** WebSocket upgrade attempts (refused: the fake speaks HTTP only). */
  readonly upgrades: ResponsesRequest[];
  close(): Promise<void>;
}

/** The usage every completed response reports. */
export const FAKE_USAGE = { input_tokens: 120, cached_input_tokens: 20, output_tokens: 12 } as const;

/**
 * Starts the fake. `script` gives the reply of the n-th model request (an array: the n-th element, the last
 * one repeating; a function: its result). Requests other than model requests get a 404 JSON error.
 */
export async function startResponsesServer(
  script: ResponsesReply[] | ((index: number, request: ResponsesRequest) => ResponsesReply),
): Promise<ResponsesServer> {
  const requests: ResponsesRequest[] = [];
  const modelRequests: ResponsesRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // kept as text
      }
      const request: ResponsesRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      if (request.method !== 'POST' || !/\/responses(\?|$)/.test(request.path)) {
        json(res, 404, {
          error: { message: `not faked: ${request.method} ${request.path}`, type: 'invalid_request_error' },
        });
        return;
      }
      const index = modelRequests.length;
      modelRequests.push(request);
      const reply = typeof script === 'function' ? script(index, request) : script[Math.min(index, script.length - 1)];
      answer(res, reply ?? { kind: 'status', status: 500, message: 'the fake has no reply scripted' }, index);
    });
  });
  const upgrades: ResponsesRequest[] = [];
  server.on('upgrade', (req: IncomingMessage, socket: { destroy(): void }) => {
    upgrades.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: undefined });
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    modelRequests,
    upgrades,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The SSE frame of one Responses event. */
function frame(event: Record<string, unknown> & { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** `text` cut into `n` nearly equal pieces (at least one). */
function split(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length ? pieces : [''];
}

function answer(res: ServerResponse, reply: ResponsesReply, index: number): void {
  if (reply.kind === 'status') {
    const type =
      reply.status === 401 ? 'invalid_authentication' : reply.status === 429 ? 'rate_limit_exceeded' : 'server_error';
    json(res, reply.status, { error: { message: reply.message ?? `fake error ${reply.status}`, type, code: type } });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const id = `resp_${index + 1}`;
  const response = (status: string, output: unknown[], usage: unknown = null) => ({
    id,
    object: 'response',
    created_at: 0,
    status,
    model: 'fake-model',
    output,
    usage,
  });
  res.write(frame({ type: 'response.created', response: response('in_progress', []) }));
  const output: Record<string, unknown>[] = [];
  const message = (text: string, deltas: string[]) => {
    const item = {
      id: `msg_${index + 1}_${output.length}`,
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [] as unknown[],
    };
    const at = { output_index: output.length, item_id: item.id, content_index: 0 };
    res.write(frame({ type: 'response.output_item.added', output_index: at.output_index, item }));
    res.write(
      frame({ type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } }),
    );
    for (const delta of deltas) res.write(frame({ type: 'response.output_text.delta', ...at, delta }));
    return {
      item,
      at,
      done: () => {
        const part = { type: 'output_text', text, annotations: [] };
        res.write(frame({ type: 'response.output_text.done', ...at, text }));
        res.write(frame({ type: 'response.content_part.done', ...at, part }));
        const finished = { ...item, status: 'completed', content: [part] };
        res.write(frame({ type: 'response.output_item.done', output_index: at.output_index, item: finished }));
        output.push(finished);
      },
    };
  };
  const whole = (item: Record<string, unknown>) => {
    res.write(
      frame({
        type: 'response.output_item.added',
        output_index: output.length,
        item: { ...item, status: 'in_progress' },
      }),
    );
    res.write(frame({ type: 'response.output_item.done', output_index: output.length, item }));
    output.push(item);
  };
  if (reply.kind === 'hang') {
    message(reply.text ?? '', reply.text ? [reply.text] : []);
    return; // open until the client goes away
  }
  if (reply.kind === 'text') {
    if (reply.reasoning)
      whole({
        id: `rs_${index + 1}`,
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: reply.reasoning }],
        content: [],
      });
    message(reply.text, split(reply.text, reply.chunks ?? 3)).done();
  } else if (reply.kind === 'call') {
    if (reply.text) message(reply.text, [reply.text]).done();
    const callId = reply.callId ?? `call_${index + 1}`;
    const args = JSON.stringify(reply.arguments);
    whole({
      id: `fc_${index + 1}`,
      type: 'function_call',
      status: 'completed',
      call_id: callId,
      name: reply.name,
      arguments: args,
    });
  } else {
    const callId = reply.callId ?? `call_${index + 1}`;
    whole({
      id: `ctc_${index + 1}`,
      type: 'custom_tool_call',
      status: 'completed',
      call_id: callId,
      name: reply.name,
      input: reply.input,
    });
  }
  const usage = {
    input_tokens: FAKE_USAGE.input_tokens,
    input_tokens_details: { cached_tokens: FAKE_USAGE.cached_input_tokens },
    output_tokens: FAKE_USAGE.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: FAKE_USAGE.input_tokens + FAKE_USAGE.output_tokens,
  };
  res.write(frame({ type: 'response.completed', response: response('completed', output, usage) }));
  res.end();
}

/** The model request bodies as text (what codex sent). */
export const bodies = (server: ResponsesServer): string[] => server.modelRequests.map((r) => JSON.stringify(r.body));
