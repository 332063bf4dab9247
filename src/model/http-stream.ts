/**
 * The HTTP transport of the real providers: one JSON POST over node:http(s), its streamed answer
 * read as server-sent events (`eventsource-parser`). Not fetch: undici, behind fetch, costs a
 * provider run ~20 ms to load and the official SDKs' web streams cost a third of the delta rate;
 * node's own client streams the same bytes with neither. Keep-alive sockets are reused between
 * turns (node's default agents), and an aborted signal destroys the request at once.
 */
import { AgentpipeError, errorCode } from '../process/errors.ts';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { VERSION } from '../version.ts';
import type { StreamEvent } from '../messages/types.ts';
import { ModelError } from './errors.ts';
import { eventsOf, type ModelProvider, type ModelRequest } from './types.ts';

/** Where a provider posts, with its key (redacted from errors) and the headers of every request. */
export interface Endpoint {
  url: string;
  apiKey: string;
  headers: Record<string, string>;
}

/**
 * An endpoint: `base` without trailing slashes, then `path`; our user agent, the provider's `headers`, then the
 * caller's `defaultHeaders` (names in lower case, so a caller's `Authorization` replaces ours instead of doubling it).
 */
export function endpoint(o: {
  base: string;
  path: string;
  apiKey: string;
  headers: Record<string, string>;
  defaultHeaders?: Record<string, string>;
}): Endpoint {
  return {
    url: `${o.base.replace(/\/+$/, '')}${o.path}`,
    apiKey: o.apiKey,
    headers: {
      'user-agent': `agentpipe/${VERSION}`,
      ...o.headers,
      ...Object.fromEntries(Object.entries(o.defaultHeaders ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
    },
  };
}

/**
 * A provider over HTTP: its endpoint, and `stream()` built from the batches its subclass streams (the events of each
 * network read together).
 */
export abstract class HttpProvider implements Pick<ModelProvider, 'specificationVersion' | 'apiKeySource' | 'stream'> {
  readonly specificationVersion = 'v1' as const;
  readonly apiKeySource: ModelProvider['apiKeySource'];
  protected readonly endpoint: Endpoint;

  constructor(apiKeySource: ModelProvider['apiKeySource'], at: Endpoint) {
    this.apiKeySource = apiKeySource;
    this.endpoint = at;
  }

  stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    return eventsOf(this.streamBatches(request));
  }

  abstract streamBatches(request: ModelRequest): AsyncGenerator<StreamEvent[]>;
}

/** One POST of a JSON body. */
export interface JsonPost {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
}

/** A response with a status of 400 or more, with its body (parsed when it is JSON). */
export class HttpStatusError extends AgentpipeError {
  static override readonly errorName: string = 'HttpStatusError';
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
  constructor(status: number, headers: IncomingMessage['headers'], body: unknown, text: string) {
    super(`${status} ${text}`.trim());
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /** A header's value (the first, when repeated). */
  header(name: string): string | undefined {
    const value = this.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }
}

/** Error bodies are read up to this size (a misconfigured server may answer with a page). */
const MAX_ERROR_BODY = 64 * 1024;
/** A non-streaming answer (e.g. a web search) is read up to this size. */
const MAX_JSON_BODY = 32 * 1024 * 1024;

/**
 * A network read (bytes, outside the JS heap) is decoded and parsed this much at a time. A 64 KB
 * read holds ~600 deltas: decoded and parsed at once, its text and events lived through several
 * young-generation collections while the consumer worked through them, and were copied and
 * promoted each time.
 */
const FEED_SIZE = 4096;

/**
 * POSTs `request` and yields the answer's server-sent events, in batches: the events of one
 * network read come together (one async hop per read instead of per event). The next read
 * waits until the consumer takes the batch. The first batch is empty and comes when the response
 * headers do: the answer has begun (from there the stall watch waits for data with its idle
 * limit). An answer that is a web page (a wrong base URL, a proxy's login page) fails with a
 * ModelError that says so (`fault: 'html'`), whatever its content type claims.
 */
export async function* postForEvents(request: JsonPost): AsyncGenerator<EventSourceMessage[]> {
  const { response, detach } = await post(request, 'text/event-stream');
  let events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  let failed = false;
  let first = true;
  try {
    if (/\btext\/html\b/i.test(String(response.headers['content-type']))) throw await htmlAnswer(request, response);
    yield [];
    for await (const chunk of response.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      if (first && startsLikeHtml(chunk)) throw await htmlAnswer(request, response, chunk);
      first = false;
      for (let at = 0; at < chunk.length; at += FEED_SIZE) {
        parser.feed(decoder.decode(chunk.subarray(at, at + FEED_SIZE), { stream: true }));
        if (events.length === 0) continue;
        const batch = events;
        events = [];
        yield batch;
      }
    }
  } catch (error) {
    failed = true;
    throw cutError(error, request.signal);
  } finally {
    detach();
    await release(response, failed || request.signal.aborted);
  }
  request.signal.throwIfAborted();
}

/**
 * The events `translate` makes of each network read's server-sent events, one batch per read. `translate` appends to
 * `out`, and says true once the answer is complete (what follows is not read). When it throws, the events it made
 * before still go out, then the error. The empty read that says the answer has begun goes on as an empty batch.
 */
export async function* translatedBatches<T>(
  reads: AsyncIterable<EventSourceMessage[]>,
  translate: (message: EventSourceMessage, out: T[]) => boolean,
): AsyncGenerator<T[]> {
  for await (const messages of reads) {
    const out: T[] = [];
    let failure: { error: unknown } | undefined;
    let complete = false;
    for (const message of messages) {
      try {
        complete = translate(message, out);
      } catch (error) {
        failure = { error };
        break;
      }
      if (complete) break;
    }
    if (out.length > 0 || messages.length === 0) yield out;
    if (failure) throw failure.error;
    if (complete) return;
  }
}

/**
 * Gives the connection back to the agent's keep-alive pool, so the next turn skips the TCP and
 * TLS handshakes; a failed request's connection is closed. A consumer that stopped at the
 * answer's end (`message_stop`) leaves at most the body's last bytes: they are read, for at most
 * a second, before the stream counts as done (a server still sending after that is cut).
 */
async function release(response: IncomingMessage, failed: boolean): Promise<void> {
  if (failed) {
    response.destroy();
    return;
  }
  if (response.readableEnded || response.destroyed) return;
  await new Promise<void>((resolve) => {
    const cut = setTimeout(() => response.destroy(), 1000);
    const done = (): void => {
      clearTimeout(cut);
      resolve();
    };
    response.once('end', done);
    response.once('close', done);
    response.resume();
  });
}

/** POSTs `request` and returns the parsed JSON answer. */
export async function postJson(request: JsonPost): Promise<unknown> {
  const { response, detach } = await post(request, 'application/json');
  let failed = false;
  try {
    const text = await readText(response, MAX_JSON_BODY);
    const value: unknown = JSON.parse(text);
    return value;
  } catch (error) {
    failed = true;
    throw error instanceof SyntaxError ? error : cutError(error, request.signal);
  } finally {
    detach();
    await release(response, failed || request.signal.aborted);
  }
}

/** A 2xx response, and the call that stops it following the request's signal. */
interface Answer {
  response: IncomingMessage;
  detach: () => void;
}

/** Sends the request; resolves with a 2xx response, rejects with HttpStatusError, ModelError or the abort reason. */
function post(request: JsonPost, accept: string): Promise<Answer> {
  const { signal } = request;
  signal.throwIfAborted();
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') {
    throw new ModelError({ kind: 'invalid_request', message: `Unsupported URL protocol: ${url.protocol}` });
  }
  const payload = Buffer.from(JSON.stringify(request.body));
  const headers: OutgoingHttpHeaders = {
    accept,
    'content-type': 'application/json',
    'content-length': payload.length,
    ...request.headers,
  };
  const { request: send } = process.getBuiltinModule(secure ? 'node:https' : 'node:http');
  return new Promise<Answer>((resolve, reject) => {
    const onAbort = (): void => {
      req.destroy();
      reject(abortReason(signal));
    };
    const settle = (): void => signal.removeEventListener('abort', onAbort);
    const req = send(url, { method: 'POST', headers }, (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        // From here the reader owns the abort: destroying the response ends its iteration.
        settle();
        const stop = (): void => void response.destroy();
        signal.addEventListener('abort', stop, { once: true });
        resolve({ response, detach: () => signal.removeEventListener('abort', stop) });
        return;
      }
      readText(response, MAX_ERROR_BODY).then(
        (text) => {
          settle();
          reject(new HttpStatusError(status, response.headers, parseJson(text), text));
        },
        (error: unknown) => {
          settle();
          reject(cutError(error, signal));
        },
      );
    });
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error) => {
      settle();
      reject(signal.aborted ? abortReason(signal) : connectionError(error, endpointOf(url)));
    });
    req.end(payload);
  });
}

/** True when a body's first bytes are markup (`<!DOCTYPE html>`, `<html>`), not server-sent events. */
function startsLikeHtml(chunk: Buffer): boolean {
  let at = chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0; // a UTF-8 byte order mark
  while (at < chunk.length && (chunk[at] === 0x20 || chunk[at] === 0x0a || chunk[at] === 0x0d || chunk[at] === 0x09))
    at++;
  return chunk[at] === 0x3c; // '<'
}

/**
 * "the API at http://host:port answered HTML (status 200, "Sign in")": the page's title from its first read (`head`,
 * once the body is being read), else from the body.
 */
async function htmlAnswer(request: JsonPost, response: IncomingMessage, head?: Buffer): Promise<ModelError> {
  const text = head ? head.toString('utf8') : await readText(response, MAX_ERROR_BODY).catch(() => '');
  const title = htmlTitle(text);
  return new ModelError({
    kind: 'connection',
    fault: 'html',
    message:
      `the API at ${new URL(request.url).origin} answered HTML (status ${response.statusCode ?? 200}` +
      `${title ? `, "${title}"` : ''}) instead of an event stream`,
  });
}

/** The `<title>` of a page, whitespace folded, at most 100 characters. */
export function htmlTitle(text: string): string | undefined {
  const title = /<title[^>]*>([^<]*)/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
  return title ? title.slice(0, 100) : undefined;
}

/** The body as text, cut at `max` characters. */
async function readText(response: IncomingMessage, max: number): Promise<string> {
  response.setEncoding('utf8');
  let text = '';
  for await (const chunk of response as AsyncIterable<string>) {
    text += chunk;
    if (text.length > max) return text.slice(0, max);
  }
  return text;
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** A failure while the answer was being read: the abort reason, or a cut connection. */
function cutError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return abortReason(signal);
  return ModelError.isInstance(error) ? error : connectionError(error);
}

/** "Connection error: connect ECONNREFUSED 127.0.0.1:1", "Connection error: aborted". */
function connectionError(error: unknown, endpoint?: string): ModelError {
  const detail = error instanceof Error ? error.message || errorCode(error) || error.name : '';
  return new ModelError({
    kind: 'connection',
    message: `Connection error: ${detail || String(error)}`,
    cause: error instanceof Error ? error : undefined,
    ...(endpoint ? { endpoint } : {}),
  });
}

/** `host:port` of a request's URL, the port always written (`api.anthropic.com:443`). */
function endpointOf(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}
