/**
 * The recording proxy a wrapped CLI uses as its API while a tape records or replays its session: a local HTTP server
 * on 127.0.0.1 whose base URL carries a random token (a request without it, or from a browser page, is refused).
 * Recording, it forwards each request to the real API (the CLI's own key goes through; no header is kept) and writes
 * the exchange on the tape with the response as the wire had it: its chunks and their times. Replaying, it answers
 * from the tape with no network and no key: a request must equal a recorded one (its body's UUIDs numbered, the
 * replay's folder, day and platform mapped to the recording's); one that does not gets the API's own error shape
 * with the first difference, and the session's prompt ends with that error.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { newUuid } from '../messages/ids.ts';
import { monotonicMs } from '../process/clock.ts';
import { numberUuids } from '../model/tape/canonical.ts';
import type { HttpApi, HttpLine, TimedChunk } from '../model/tape/format.ts';
import { RequestMatcher } from '../model/tape/matcher.ts';
import { mapStrings } from '../model/tape/scene.ts';
import { inOrderGemini } from './tape-unordered.ts';
import type { HarnessName } from './types.ts';

/** Requests larger than this are refused (413). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** How the proxy works for one session. */
export type TapeProxyOptions =
  | {
      mode: 'record';
      /** The real API's base URL (its path is kept: `https://api.openai.com/v1`). */
      upstream: string;
      write: (line: HttpLine) => void;
      nextRequest: () => number;
    }
  | {
      mode: 'replay';
      /** The path of the recorded API's base URL (`/v1`), so the CLI asks the same paths. */
      basePath: string;
      lines: HttpLine[];
      file: string;
      /** Maps the replay's text into the recorded scene. */
      toRecorded?: (text: string) => string;
      /** Told of a request that is not on the tape; returns the text to send back. */
      onMismatch: (text: string) => string;
    };

export interface TapeProxy {
  /** The base URL to give the wrapped CLI. */
  url: string;
  close(): Promise<void>;
}

/** The wire format of a request, from its path. */
export function apiOf(path: string): HttpApi {
  if (/\/messages(\?|$)/.test(path)) return 'anthropic';
  if (/\/responses(\?|$)/.test(path)) return 'openai-responses';
  if (/\/chat\/completions(\?|$)/.test(path)) return 'openai-chat';
  if (/\/models\/[^/]+:\w+/.test(path)) return 'gemini';
  return 'other';
}

/** A path as the tape keeps it: a key in its query (`?key=`, as some Gemini clients send it) redacted. */
const pathOf = (path: string) => path.replace(/([?&](?:key|api_key|access_token)=)[^&]*/gi, '$1<redacted>');

/** A request that asks the model for an answer (not a token count, a model list ...). */
const isModelCall = (method: string, path: string) =>
  method === 'POST' && /\/(messages|responses|chat\/completions)(\?|$)|:(stream)?[gG]enerateContent/.test(path);

/** The API's own error body, so the wrapped CLI reports it as it reports any refusal. */
function apiError(api: HttpApi, text: string): unknown {
  if (api === 'anthropic') return { type: 'error', error: { type: 'invalid_request_error', message: text } };
  if (api === 'gemini') return { error: { code: 400, message: text, status: 'INVALID_ARGUMENT' } };
  return { error: { message: text, type: 'invalid_request_error', code: 'agentpipe_replay_mismatch' } };
}

const isText = (contentType: string | undefined) =>
  !contentType || /^text\/|json|event-stream|xml|javascript/i.test(contentType);

export async function startTapeProxy(options: TapeProxyOptions): Promise<TapeProxy> {
  const token = newUuid().replaceAll('-', '');
  const prefix = `/${token}`;
  const answer = options.mode === 'record' ? forwarder(options) : replayer(options);
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    if (req.headers.origin !== undefined) return send(res, 403, { error: 'agentpipe proxy: no browser origins' });
    if (url !== prefix && !url.startsWith(`${prefix}/`) && !url.startsWith(`${prefix}?`))
      return send(res, 404, { error: 'agentpipe proxy: unknown path' });
    readBody(req).then(
      (body) => answer(req.method ?? 'GET', url.slice(prefix.length) || '/', req, body, res),
      (error: Error) => send(res, 413, { error: `agentpipe proxy: ${error.message}` }),
    );
  });
  server.on('upgrade', (_req: IncomingMessage, socket: { destroy(): void }) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const basePath = options.mode === 'record' ? new URL(options.upstream).pathname : options.basePath;
  return {
    url: `http://127.0.0.1:${port}${prefix}${basePath.replace(/\/+$/, '')}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Answer = (method: string, path: string, req: IncomingMessage, body: Buffer, res: ServerResponse) => void;

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES >> 20} MB`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The body as the tape keeps it: parsed JSON, or text. */
function bodyOf(body: Buffer): unknown {
  if (body.length === 0) return null;
  const text = body.toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return text;
  }
}

/** Headers that belong to one hop, or that the proxy sets itself. */
const HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'accept-encoding',
  'transfer-encoding',
  'origin',
]);

function forwarder(options: Extract<TapeProxyOptions, { mode: 'record' }>): Answer {
  const upstream = new URL(options.upstream);
  return (method, path, req, body, res) => {
    const n = options.nextRequest();
    const started = monotonicMs();
    const chunks: TimedChunk[] = [];
    const line = { type: 'http' as const, n, api: apiOf(path), method, path: pathOf(path), request: bodyOf(body) };
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP.has(name)) headers[name] = value;
    headers['accept-encoding'] = 'identity';
    headers['content-length'] = String(body.length);
    const target = new URL(`${upstream.origin}${path}`);
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, { method, headers });
    request.on('response', (upstreamRes) => {
      const status = upstreamRes.statusCode ?? 502;
      const contentType = upstreamRes.headers['content-type'];
      const text = isText(contentType);
      const decoder = new StringDecoder('utf8');
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(upstreamRes.headers))
        if (value !== undefined && !HOP.has(name)) out[name] = value;
      res.writeHead(status, out);
      const at = () => Math.round(monotonicMs() - started);
      upstreamRes.on('data', (chunk: Buffer) => {
        const piece = text ? decoder.write(chunk) : chunk.toString('base64');
        if (piece) chunks.push([at(), piece]);
        if (!res.write(chunk)) {
          upstreamRes.pause();
          res.once('drain', () => upstreamRes.resume());
        }
      });
      const finish = (error?: string) => {
        const rest = text ? decoder.end() : '';
        if (rest) chunks.push([at(), rest]);
        options.write({
          ...line,
          status,
          ...(contentType ? { content_type: contentType } : {}),
          chunks,
          ...(text ? {} : { encoding: 'base64' as const }),
          ...(error ? { error } : {}),
        });
      };
      upstreamRes.on('end', () => {
        finish();
        res.end();
      });
      upstreamRes.on('error', (error) => {
        finish(error.message);
        res.destroy();
      });
    });
    request.on('error', (error) => {
      options.write({ ...line, status: 502, chunks: [], error: error.message });
      send(res, 502, apiError(line.api, `agentpipe proxy: the API at ${upstream.origin} failed: ${error.message}`));
    });
    res.on('close', () => request.destroy());
    request.end(body);
  };
}

/**
 * Body fields the API keeps for its own ends and the model never sees: a client's ids and clocks (Claude Code's
 * `metadata.user_id`, Codex's `client_metadata` with the turn's start time, OpenAI's cache routing key and end-user
 * ids). They are on the tape; a replay is not compared on them.
 */
const UNSEEN: Record<HttpApi, string[]> = {
  anthropic: ['metadata'],
  'openai-responses': ['client_metadata', 'prompt_cache_key', 'user', 'safety_identifier', 'metadata'],
  'openai-chat': ['prompt_cache_key', 'user', 'safety_identifier', 'metadata'],
  gemini: [],
  other: [],
};

/**
 * What a wrapped CLI writes into its tool results from its own ids and clocks (Codex: each command output's chunk id
 * and wall time): the model sees them, but no replay can draw them again, so they are compared as placeholders.
 */
const DRAWN: Array<[RegExp, string]> = [
  [/\bChunk ID: [0-9a-f]+/g, 'Chunk ID: <id>'],
  [/\bWall time: [\d.]+ seconds\b/g, 'Wall time: <time> seconds'],
];
const undrawn = (text: string) => DRAWN.reduce((out, [pattern, to]) => out.replace(pattern, to), text);

/**
 * What a replay compares of a request: the method, the path, the body without UNSEEN fields or DRAWN values (and the
 * Gemini CLI's unordered skill lists sorted).
 */
function canonicalExchange(method: string, path: string, body: unknown): unknown {
  const api = apiOf(path);
  let seen = api === 'gemini' ? inOrderGemini(body) : body;
  const unseen = UNSEEN[api];
  if (unseen.length && seen && typeof seen === 'object' && !Array.isArray(seen))
    seen = Object.fromEntries(Object.entries(seen).filter(([key]) => !unseen.includes(key)));
  return { method, path, body: numberUuids(mapStrings(seen, undrawn)) };
}

function replayer(options: Extract<TapeProxyOptions, { mode: 'replay' }>): Answer {
  const canonical = canonicalExchange;
  const entries = (model: boolean) =>
    options.lines
      .filter((line) => isModelCall(line.method, line.path) === model)
      .map((line) => ({
        canonical: canonical(line.method, line.path, line.request),
        value: line,
        label: `exchange #${line.n} (${line.method} ${line.path})`,
      }));
  const models = new RequestMatcher(entries(true));
  // Side requests (token counts, model lists) may come a different number of times: the last answer serves again.
  const others = new RequestMatcher(entries(false), { reuse: true });
  let divergence: string | undefined;
  return (method, path, _req, body, res) => {
    const map = options.toRecorded;
    const asked = canonical(method, pathOf(map ? map(path) : path), map ? mapStrings(bodyOf(body), map) : bodyOf(body));
    const api = apiOf(path);
    if (divergence !== undefined) return send(res, 400, apiError(api, divergence));
    const found = (isModelCall(method, path) ? models : others).take(asked);
    if ('miss' in found) {
      divergence = options.onMismatch(
        `Replay: the request ${method} ${path} is not on the tape ${options.file}: ${found.miss}`,
      );
      return send(res, 400, apiError(api, divergence));
    }
    const line = found.entry.value;
    res.writeHead(line.status, line.content_type ? { 'content-type': line.content_type } : {});
    for (const [, chunk] of line.chunks) res.write(line.encoding === 'base64' ? Buffer.from(chunk, 'base64') : chunk);
    if (line.error) res.destroy();
    else res.end();
  };
}

/** Where a wrapped CLI's API is: `--base-url`, else its base URL variable, else the API's own address. */
export function upstreamOf(
  name: Exclude<HarnessName, 'agentpipe'>,
  baseUrl: string | undefined,
  env: NodeJS.ProcessEnv,
): string {
  if (baseUrl) return baseUrl;
  switch (name) {
    case 'claude':
      return env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com';
    case 'codex':
      return env.OPENAI_BASE_URL || 'https://api.openai.com/v1';
    case 'gemini':
      return env.GOOGLE_GEMINI_BASE_URL || 'https://generativelanguage.googleapis.com';
    case 'qwen':
      if (!env.OPENAI_BASE_URL) throw new Error('recording --harness qwen needs --base-url or OPENAI_BASE_URL');
      return env.OPENAI_BASE_URL;
    case 'acp':
      throw new Error('tapes need a wrapped CLI whose API agentpipe knows: not --harness acp');
  }
}
