/**
 * A provider that records: every request goes to the provider it wraps, and the tape gets the request in canonical
 * form (written as it is made) and the answer as it streamed (each event with its time), or the error, or how far
 * it got before the client stopped reading.
 */
import type { StreamEvent } from '../../messages/types.ts';
import { monotonicMs } from '../../process/clock.ts';
import { ModelError } from '../errors.ts';
import type { ModelProvider, ModelRequest, WebSearchRequest } from '../types.ts';
import { canonicalRequest } from './canonical.ts';
import type { TapeError, TimedEvent } from './format.ts';
import type { TapeWriter } from './writer.ts';

/** A failure as the tape keeps it. */
export function tapeErrorOf(error: unknown): TapeError {
  if (ModelError.isInstance(error))
    return {
      message: error.message,
      kind: error.kind,
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.retryAfterMs !== undefined ? { retry_after_ms: error.retryAfterMs } : {}),
    };
  return { message: error instanceof Error ? error.message : String(error), kind: 'unknown' };
}

export class RecordingProvider implements ModelProvider {
  readonly specificationVersion = 'v1';
  readonly #inner: ModelProvider;
  readonly #tape: TapeWriter;
  readonly webSearch?: (request: WebSearchRequest) => Promise<unknown[]>;

  constructor(inner: ModelProvider, tape: TapeWriter) {
    this.#inner = inner;
    this.#tape = tape;
    const search = inner.webSearch?.bind(inner);
    if (search) this.webSearch = (request) => this.#search(search, request);
    const window = inner.contextWindow?.bind(inner);
    if (window) this.contextWindow = window;
  }

  get provider(): string {
    return this.#inner.provider;
  }

  get apiKeySource(): ModelProvider['apiKeySource'] {
    return this.#inner.apiKeySource;
  }

  /** The wrapped provider's context window, when it has its own. */
  readonly contextWindow?: (model: string) => number;

  usageModel(asked: string, answered: string): string {
    return this.#inner.usageModel?.(asked, answered) ?? asked;
  }

  stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    return this.#record(request, async function* (inner) {
      for await (const event of inner.stream(request)) yield [event];
    });
  }

  streamBatches(request: ModelRequest): AsyncGenerator<StreamEvent[]> {
    const batches = this.#inner.streamBatches?.bind(this.#inner);
    if (!batches)
      return this.#recordBatches(request, async function* (inner) {
        for await (const event of inner.stream(request)) yield [event];
      });
    return this.#recordBatches(request, () => batches(request));
  }

  async *#record(
    request: ModelRequest,
    source: (inner: ModelProvider) => AsyncIterable<StreamEvent[]>,
  ): AsyncGenerator<StreamEvent> {
    for await (const batch of this.#recordBatches(request, source)) yield* batch;
  }

  async *#recordBatches(
    request: ModelRequest,
    source: (inner: ModelProvider) => AsyncIterable<StreamEvent[]>,
  ): AsyncGenerator<StreamEvent[]> {
    const n = this.#tape.nextRequest();
    this.#tape.write({ type: 'model_request', n, request: canonicalRequest(request) });
    const started = monotonicMs();
    const events: TimedEvent[] = [];
    let written = false;
    try {
      for await (const batch of source(this.#inner)) {
        const at = Math.round(monotonicMs() - started);
        for (const event of batch) events.push([at, event]);
        yield batch;
      }
    } catch (error) {
      written = true;
      const aborted = request.abortSignal.aborted && !ModelError.isInstance(error);
      this.#tape.write(
        aborted
          ? { type: 'model_response', n, events, aborted: true }
          : { type: 'model_response', n, events, error: tapeErrorOf(error) },
      );
      throw error;
    } finally {
      // The stream ended, or its reader stopped: at message_stop (all there is), or interrupted mid-answer.
      if (!written) {
        const cut = request.abortSignal.aborted && !events.some(([, event]) => event.type === 'message_stop');
        this.#tape.write({ type: 'model_response', n, events, ...(cut ? { aborted: true as const } : {}) });
      }
    }
  }

  async #search(search: (request: WebSearchRequest) => Promise<unknown[]>, request: WebSearchRequest) {
    const recorded = {
      model: request.model,
      query: request.query,
      ...(request.allowedDomains ? { allowed_domains: request.allowedDomains } : {}),
      ...(request.blockedDomains ? { blocked_domains: request.blockedDomains } : {}),
    };
    try {
      const blocks = await search(request);
      this.#tape.write({ type: 'web_search', request: recorded, blocks });
      return blocks;
    } catch (error) {
      this.#tape.write({ type: 'web_search', request: recorded, error: tapeErrorOf(error) });
      throw error;
    }
  }
}
