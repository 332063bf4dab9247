/**
 * The Anthropic Messages API provider: the request the official `@anthropic-ai/sdk` sends (its
 * headers and body; `test/model/anthropic.unit.test.ts` holds the two side by side), streamed over
 * node's HTTP client (`http-stream.ts`). Raw SSE events pass through, normalised to `StreamEvent`.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { AssistantContentBlock, ContentDelta, StopReason, StreamEvent } from '../messages/types.ts';
import { apiMessage, apiUsage, messageDelta } from '../messages/usage.ts';
import { envMs } from '../process/env-number.ts';
import { toModelError } from './api-errors.ts';
import { fromApiError, streamError } from './anthropic-errors.ts';
import { ModelError } from './errors.ts';
import { endpoint, HttpProvider, postForEvents, postJson, translatedBatches } from './http-stream.ts';
import { keepWire } from './wire-event.ts';
import { requestBody } from './anthropic-request.ts';
import { BetaFallback } from './beta-fallback.ts';
import type { ModelProvider, ModelRequest, WebSearchRequest } from './types.ts';

/** Options of `AnthropicProvider`. */
export interface AnthropicProviderOptions {
  apiKey: string;
  /** API base URL (default: `ANTHROPIC_BASE_URL`, else https://api.anthropic.com). */
  baseUrl?: string;
  apiKeySource: ModelProvider['apiKeySource'];
  defaultHeaders?: Record<string, string>;
}

/** Anthropic's own API. */
const ANTHROPIC_API = 'https://api.anthropic.com';
/** The API version the official SDK this release was checked against sends. */
const API_VERSION = '2026-10-21';

/** Streams Claude models through the Anthropic Messages API. */
export class AnthropicProvider extends HttpProvider implements ModelProvider {
  readonly provider = 'anthropic';
  readonly servedByAnthropic: boolean;
  readonly gatewayHost?: string;
  /** What a 400 showed this session's API refuses (Claude Code's default betas). */
  readonly #betas = new BetaFallback();

  constructor(options: AnthropicProviderOptions) {
    const base = options.baseUrl || process.env.ANTHROPIC_BASE_URL || ANTHROPIC_API;
    super(
      options.apiKeySource,
      endpoint({
        base,
        path: '/v1/messages',
        apiKey: options.apiKey,
        headers: { 'anthropic-version': API_VERSION, authorization: `Bearer ${options.apiKey}` },
        defaultHeaders: options.defaultHeaders,
      }),
    );
    this.servedByAnthropic = URL.canParse(base) && new URL(base).host === new URL(ANTHROPIC_API).host;
    // As Claude Code names a gateway: a host that is not *.anthropic.com.
    const url = URL.canParse(base) ? new URL(base) : undefined;
    if (url?.host && !url.hostname.endsWith('.anthropic.com')) this.gatewayHost = url.host;
  }

  /**
   * The events of each network read together; an error event still lets out the events before it. A 400 is answered
   * as Claude Code answers it when the request asks (beta-fallback.ts).
   */
  streamBatches(request: ModelRequest): AsyncGenerator<StreamEvent[]> {
    return this.#betas.stream(request, (attempt) => this.#answer(attempt));
  }

  /** The request's events; on the Claude faces a 404 is asked again without streaming (anthropic-nonstreaming.ts). */
  async *#answer(request: ModelRequest): AsyncGenerator<StreamEvent[]> {
    let began = false;
    try {
      for await (const batch of this.#streamOnce(request)) {
        began = true;
        yield batch;
      }
    } catch (error) {
      if (began || !request.betaFallback || !(error instanceof ModelError && error.status === 404)) throw error;
      yield await this.#nonStreaming(request);
    }
  }

  async #nonStreaming(request: ModelRequest): Promise<StreamEvent[]> {
    const { messageEvents } = await import('./anthropic-nonstreaming.ts');
    const signal = request.abortSignal;
    try {
      const body = { ...requestBody(request), stream: false };
      const answer = await postJson({ url: this.endpoint.url, headers: this.#headers(request), body, signal });
      const normaliser = new EventNormaliser();
      return messageEvents(answer).flatMap((raw) => normaliser.normalise(rawEvent(JSON.stringify(raw))) ?? []);
    } catch (error) {
      throw toModelError(error, signal, this.endpoint.apiKey, fromApiError);
    }
  }

  #headers(request: ModelRequest): Record<string, string> {
    return request.betas?.length
      ? { ...this.endpoint.headers, 'anthropic-beta': request.betas.join(',') }
      : this.endpoint.headers;
  }

  async *#streamOnce(request: ModelRequest): AsyncGenerator<StreamEvent[]> {
    const signal = request.abortSignal;
    signal.throwIfAborted();
    try {
      const normaliser = new EventNormaliser();
      const headers = this.#headers(request);
      const reads = postForEvents({ url: this.endpoint.url, headers, body: requestBody(request), signal });
      yield* translatedBatches<StreamEvent>(reads, ({ event, data }, out) => {
        if (event === 'ping') return false;
        const raw = rawEvent(data);
        if (raw.type === 'error') throw streamError(raw);
        const normalised = normaliser.normalise(raw);
        if (normalised) {
          if (showsWire(raw, normalised)) keepWire(normalised, raw);
          out.push(normalised);
        }
        // Whatever follows message_stop is not read: the answer is complete.
        return normaliser.stopped;
      });
      if (!normaliser.stopped)
        throw new ModelError({ kind: 'connection', fault: 'cut', message: 'the stream ended before message_stop' });
    } catch (error) {
      throw toModelError(error, signal, this.endpoint.apiKey, fromApiError);
    }
  }

  /**
   * One request with the `web_search_20250305` server tool (WebSearch); its content blocks, as Claude Code reads them.
   */
  async webSearch(request: WebSearchRequest): Promise<unknown[]> {
    const { signal } = request;
    try {
      const tool: Anthropic.WebSearchTool20250305 = {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: MAX_SEARCHES,
        ...(request.allowedDomains?.length ? { allowed_domains: request.allowedDomains } : {}),
        ...(request.blockedDomains?.length ? { blocked_domains: request.blockedDomains } : {}),
      };
      const body: Anthropic.MessageCreateParamsNonStreaming = {
        model: request.model,
        max_tokens: 4096,
        messages: [{ role: 'user', content: searchPrompt(request.query) }],
        tools: [tool],
      };
      // Not streamed, so no stall watch: the request as a whole gets API_TIMEOUT_MS (as Claude Code's requests).
      const deadline = AbortSignal.timeout(envMs('API_TIMEOUT_MS', 600_000));
      const answer = await postJson({
        url: this.endpoint.url,
        headers: this.endpoint.headers,
        body,
        signal: AbortSignal.any([signal, deadline]),
      });
      const content = typeof answer === 'object' && answer !== null && 'content' in answer ? answer.content : undefined;
      if (!Array.isArray(content)) {
        throw new ModelError({ kind: 'server_error', message: 'The web search answer has no content blocks' });
      }
      return content as unknown[];
    } catch (error) {
      throw toModelError(error, signal, this.endpoint.apiKey, fromApiError);
    }
  }
}

const TEXT_DELTA_HEAD = '{"type":"content_block_delta","index":';
const TEXT_DELTA_TAIL = ',"delta":{"type":"text_delta","text":';

/**
 * A text delta written as the API writes it (`{"type":"content_block_delta","index":N,"delta":
 * {"type":"text_delta","text":"..."}}`), read without parsing the whole event: most of a stream
 * is these, and this costs about half of JSON.parse. The text is still read by JSON.parse, so an
 * event that is any other shape (or not JSON) is undefined here and goes the general way. The
 * fixed parts are compared as slices: on the sliced strings the SSE parser hands out, V8's
 * startsWith() and indexOf() go a character at a time (this read took ~1.5x as long with them).
 */
export function textDeltaEvent(data: string): RawEvent | undefined {
  const head = TEXT_DELTA_HEAD.length;
  const end = data.length - 2;
  if (data.slice(0, head) !== TEXT_DELTA_HEAD || data.charCodeAt(end) !== 125 || data.charCodeAt(end + 1) !== 125)
    return undefined; // not `...}}`
  let index = 0;
  let tail = head;
  for (; tail < head + 9; tail++) {
    const digit = data.charCodeAt(tail) - 48;
    if (!(digit >= 0 && digit <= 9)) break;
    index = index * 10 + digit;
  }
  if (tail === head || (data.charCodeAt(head) === 48 && tail > head + 1)) return undefined;
  const start = tail + TEXT_DELTA_TAIL.length;
  if (start > end || data.slice(tail, start) !== TEXT_DELTA_TAIL) return undefined;
  let text: unknown;
  try {
    text = JSON.parse(data.slice(start, end));
  } catch {
    return undefined;
  }
  return typeof text === 'string'
    ? { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }
    : undefined;
}

/** One event's data: an object with a `type`, or the stream is broken. */
function rawEvent(data: string): RawEvent {
  const delta = textDeltaEvent(data);
  if (delta) return delta;
  const value = JSON.parse(data) as unknown;
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new ModelError({ kind: 'server_error', message: `Malformed stream event: ${data.slice(0, 200)}` });
  }
  return value as RawEvent;
}

/**
 * Whether a `stream_event` shows the API's own event for `event`: not for text and JSON deltas (the same members
 * either way: the hot path stays as it was), nor for an event whose block was renumbered past a dropped one.
 */
function showsWire(raw: RawEvent, event: StreamEvent): boolean {
  if (event.type === 'content_block_delta')
    return event.delta.type !== 'text_delta' && event.delta.type !== 'input_json_delta' && event.index === raw.index;
  return !('index' in event) || event.index === raw.index;
}

/** Claude Code's instruction for the search request, and its cap on searches per call. */
const searchPrompt = (query: string) => `Perform a web search for the query: ${query}`;
const MAX_SEARCHES = 8;

/** The loosely typed raw event as it comes off the wire. */
interface RawEvent {
  type: string;
  index?: number;
  message?: { id: string; model: string; stop_reason?: string | null; stop_sequence?: string | null; usage?: RawUsage };
  content_block?: {
    type: string;
    text?: string;
    thinking?: string;
    signature?: string;
    id?: string;
    name?: string;
    input?: Record<string, unknown>;
  };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  };
  usage?: RawUsage;
  error?: { type?: unknown; message?: unknown };
}

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number } | null;
  service_tier?: string | null;
  inference_geo?: string | null;
}

const STOP_REASONS: ReadonlySet<string> = new Set([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
]);

function stopReason(value: string | null | undefined): StopReason | null {
  if (value === null || value === undefined) return null;
  if (STOP_REASONS.has(value)) return value as StopReason;
  return value === 'model_context_window_exceeded' ? 'max_tokens' : 'end_turn';
}

const num = (value: number | null | undefined): number | undefined => (typeof value === 'number' ? value : undefined);

/**
 * Maps raw events onto our union. Blocks of types we cannot represent (redacted_thinking,
 * server tool blocks) are dropped with their deltas, and the remaining blocks renumbered so
 * indices stay sequential.
 */
class EventNormaliser {
  stopped = false;
  readonly #indices = new Map<number, number>();
  #next = 0;

  normalise(raw: RawEvent): StreamEvent | undefined {
    switch (raw.type) {
      case 'message_start': {
        const m = raw.message!;
        const usage = apiUsage({
          input_tokens: num(m.usage?.input_tokens),
          output_tokens: num(m.usage?.output_tokens),
          cache_creation_input_tokens: num(m.usage?.cache_creation_input_tokens),
          cache_read_input_tokens: num(m.usage?.cache_read_input_tokens),
        });
        if (m.usage?.cache_creation) usage.cache_creation = m.usage.cache_creation;
        if (typeof m.usage?.inference_geo === 'string') usage.inference_geo = m.usage.inference_geo;
        const tier = m.usage?.service_tier;
        if (tier === 'standard' || tier === 'priority' || tier === 'batch') usage.service_tier = tier;
        return {
          type: 'message_start',
          message: apiMessage({
            id: m.id,
            model: m.model,
            content: [],
            stop_reason: stopReason(m.stop_reason),
            stop_sequence: m.stop_sequence,
            usage,
          }),
        };
      }
      case 'content_block_start': {
        const block = contentBlock(raw.content_block);
        if (!block || raw.index === undefined) return undefined;
        const index = this.#next++;
        this.#indices.set(raw.index, index);
        return { type: 'content_block_start', index, content_block: block };
      }
      case 'content_block_delta': {
        const index = raw.index === undefined ? undefined : this.#indices.get(raw.index);
        const delta = contentDelta(raw.delta);
        if (index === undefined || !delta) return undefined;
        return { type: 'content_block_delta', index, delta };
      }
      case 'content_block_stop': {
        const index = raw.index === undefined ? undefined : this.#indices.get(raw.index);
        return index === undefined ? undefined : { type: 'content_block_stop', index };
      }
      case 'message_delta': {
        const u = raw.usage ?? {};
        return messageDelta(
          { stop_reason: stopReason(raw.delta?.stop_reason), stop_sequence: raw.delta?.stop_sequence },
          {
            input_tokens: num(u.input_tokens) ?? null,
            output_tokens: num(u.output_tokens) ?? 0,
            cache_creation_input_tokens: num(u.cache_creation_input_tokens) ?? null,
            cache_read_input_tokens: num(u.cache_read_input_tokens) ?? null,
          },
        );
      }
      case 'message_stop':
        this.stopped = true;
        return { type: 'message_stop' };
      default:
        return undefined; // ping and event types this version does not know
    }
  }
}

function contentBlock(raw: RawEvent['content_block']): AssistantContentBlock | undefined {
  switch (raw?.type) {
    case 'text':
      return { type: 'text', text: raw.text ?? '', citations: null };
    case 'thinking':
      return { type: 'thinking', thinking: raw.thinking ?? '', signature: raw.signature ?? '' };
    case 'tool_use':
      return { type: 'tool_use', id: raw.id ?? '', name: raw.name ?? '', input: raw.input ?? {} };
    default:
      return undefined;
  }
}

function contentDelta(raw: RawEvent['delta']): ContentDelta | undefined {
  switch (raw?.type) {
    case 'text_delta':
      return { type: 'text_delta', text: raw.text ?? '' };
    case 'thinking_delta':
      return { type: 'thinking_delta', thinking: raw.thinking ?? '', estimated_tokens: null };
    case 'signature_delta':
      return { type: 'signature_delta', signature: raw.signature ?? '' };
    case 'input_json_delta':
      return { type: 'input_json_delta', partial_json: raw.partial_json ?? '' };
    default:
      return undefined; // citations_delta and newer kinds
  }
}
