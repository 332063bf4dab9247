/**
 * A local fake of the Gemini API (generativelanguage `v1beta`) for the Gemini CLI harness tests:
 * `:streamGenerateContent?alt=sse` answers from a script (text in chunks, a function call, an
 * HTTP error, a stream that never ends), `:generateContent` answers the CLI's model router and
 * its other JSON side questions, `:countTokens` a fixed count. Every request is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake answers one `streamGenerateContent` request. */
export type GeminiReply =
  | { kind: 'text'; chunks: string[]; delayMs?: number }
  | { kind: 'call'; name: string; args: Record<string, unknown>; text?: string }
  | { kind: 'error'; status: number; message: string }
  /** Streams `chunks`, then keeps the response open until the client goes away. */
  | { kind: 'hang'; chunks: string[] };

/** One request the fake received. */
export interface GeminiRequest {
  method: string;
  /** `streamGenerateContent`, `generateContent`, `countTokens` or the raw path. */
  action: string;
  model: string;
  body: unknown;
}

/** A running fake. */
export interface FakeGemini {
  /** http://127.0.0.1:<port> (GOOGLE_GEMINI_BASE_URL). */
  url: string;
  requests: GeminiRequest[];
  /** The `contents` of each `streamGenerateContent` request (the conversation the CLI sent). */
  chats(): unknown[][];
  close(): Promise<void>;
}

/** Token counts reported by every streamed answer (its last chunk). */
export const FAKE_USAGE = {
  promptTokenCount: 100,
  candidatesTokenCount: 20,
  totalTokenCount: 120,
  cachedContentTokenCount: 10,
};

const DONE: GeminiReply = { kind: 'text', chunks: ['Done.'] };

/**
 * Starts the fake; `script[i]` answers the i-th stream request (the last answers the rest), or `script(request, i)`.
 */
export async function startFakeGemini(
  script: GeminiReply[] | ((request: GeminiRequest, index: number) => GeminiReply),
): Promise<FakeGemini> {
  const requests: GeminiRequest[] = [];
  let streams = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const match = /\/models\/([^:/?]+):(\w+)/.exec(req.url ?? '');
      const request: GeminiRequest = {
        method: req.method ?? '',
        action: match?.[2] ?? req.url ?? '',
        model: match?.[1] ?? '',
        body: parse(text),
      };
      requests.push(request);
      if (request.action === 'streamGenerateContent') {
        const index = streams++;
        const reply =
          typeof script === 'function' ? script(request, index) : (script[Math.min(index, script.length - 1)] ?? DONE);
        void stream(res, reply);
      } else if (request.action === 'generateContent') json(res, 200, sideAnswer(text));
      else if (request.action === 'countTokens') json(res, 200, { totalTokens: 100 });
      else
        json(res, 404, {
          error: { code: 404, message: `fake gemini: no route for ${req.method} ${req.url}`, status: 'NOT_FOUND' },
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    chats: () => requests.filter((r) => r.action === 'streamGenerateContent').map((r) => contentsOf(r.body)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

function contentsOf(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null || !('contents' in body)) return [];
  return Array.isArray(body.contents) ? (body.contents as unknown[]) : [];
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** One streamed candidate. */
function frame(parts: unknown[], finishReason?: string): string {
  const candidate = { content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) };
  return (
    'data: ' +
    JSON.stringify({
      candidates: [candidate],
      ...(finishReason ? { usageMetadata: FAKE_USAGE } : {}),
      modelVersion: 'fake',
    }) +
    '\r\n\r\n'
  );
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function stream(res: ServerResponse<IncomingMessage>, reply: GeminiReply): Promise<void> {
  if (reply.kind === 'error') {
    const status =
      { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED' }[
        reply.status
      ] ?? 'INTERNAL';
    json(res, reply.status, { error: { code: reply.status, message: reply.message, status } });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (reply.kind === 'call') {
    if (reply.text) res.write(frame([{ text: reply.text }]));
    res.end(frame([{ functionCall: { name: reply.name, args: reply.args } }], 'STOP'));
    return;
  }
  const last = reply.kind === 'text' ? reply.chunks.length - 1 : -1;
  for (const [i, text] of reply.chunks.entries()) {
    if (res.destroyed) return;
    res.write(frame([{ text }], i === last ? 'STOP' : undefined));
    if (reply.kind === 'text' && reply.delayMs) await sleep(reply.delayMs);
  }
  if (reply.kind === 'text') res.end();
  // 'hang': open until the client goes away.
}

/**
 * The CLI's non-streamed side questions: JSON ones (its model routers, next-speaker check) get every field they ask
 * for, else a text.
 */
function sideAnswer(body: string): unknown {
  const text = body.includes('application/json')
    ? JSON.stringify({
        reasoning: 'Simple.',
        model_choice: 'flash',
        complexity_reasoning: 'Simple.',
        complexity_score: 10,
        next_speaker: 'user',
      })
    : 'ok';
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 },
  };
}
