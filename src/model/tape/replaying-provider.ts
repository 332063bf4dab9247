/**
 * A provider that answers from a tape, offline: each request, mapped into the recorded scene, must equal a recorded
 * one (in canonical form); its recorded answer is then served as it streamed (without the pauses), or its recorded
 * error is thrown. A request that is not on the tape fails with the first difference against the nearest recorded
 * request, and so does every request after it (the run has left the tape). At a fork point (`goLive()`), the requests
 * go to a live provider from then on.
 */
import type { StreamEvent } from '../../messages/types.ts';
import { ModelError, type ModelErrorKind } from '../errors.ts';
import { contextWindowOf } from '../pricing.ts';
import type { ModelProvider, ModelRequest, WebSearchRequest } from '../types.ts';
import { canonicalRequest } from './canonical.ts';
import type { ModelResponseLine, TapeError, TapeLine, WebSearchLine } from './format.ts';
import { RequestMatcher } from './matcher.ts';
import { mapStrings } from './scene.ts';
import { isOneOf } from '../../process/guards.ts';

/** The live side of a fork: the provider and model the run goes on with. */
export interface LiveModel {
  provider: ModelProvider;
  model: string;
}

export interface ReplayOptions {
  file: string;
  lines: TapeLine[];
  /** The recorded provider's name, key source and model (what `system/init` and usage report). */
  provider: string;
  apiKeySource: ModelProvider['apiKeySource'];
  model: string;
  /** Maps a replay's text into the recorded scene (folder, day, platform); none when they are the same. */
  toRecorded?: (text: string) => string;
  /** Told the first time a request is not on the tape. */
  onMismatch: (text: string) => void;
  /** The live side of a fork (`goLive()`). */
  live?: LiveModel;
}

/** The error of a request that left the tape: never retried, never a reason to fall back to another model. */
export function mismatchError(text: string): ModelError {
  return new ModelError({ message: text, kind: 'invalid_request' });
}

const KINDS: readonly ModelErrorKind[] = [
  'authentication_failed',
  'rate_limit',
  'overloaded',
  'server_error',
  'invalid_request',
  'model_not_found',
  'billing_error',
  'connection',
  'aborted',
];

/** The recorded failure, thrown again (a retry waits no longer than the replay needs: not at all). */
function replayedError(error: TapeError): ModelError {
  const kind = isOneOf(KINDS, error.kind) ? error.kind : 'unknown';
  const replayed = new ModelError({ message: error.message, kind, status: error.status });
  return replayed.retryable
    ? new ModelError({ message: error.message, kind, status: error.status, retryAfterMs: 0 })
    : replayed;
}

export class ReplayingProvider implements ModelProvider {
  readonly specificationVersion = 'v1';
  readonly #options: ReplayOptions;
  readonly #requests: RequestMatcher<ModelResponseLine | undefined>;
  readonly #searches: RequestMatcher<WebSearchLine>;
  #mismatch?: string;
  #live?: LiveModel;

  constructor(options: ReplayOptions) {
    this.#options = options;
    const responses = new Map<number, ModelResponseLine>();
    for (const line of options.lines) if (line.type === 'model_response') responses.set(line.n, line);
    const requests = options.lines.flatMap((line) =>
      line.type === 'model_request'
        ? [{ canonical: line.request, value: responses.get(line.n), label: `model request #${line.n}` }]
        : [],
    );
    this.#requests = new RequestMatcher(requests);
    const searches = options.lines.flatMap((line, i) =>
      line.type === 'web_search' ? [{ canonical: line.request, value: line, label: `web search #${i}` }] : [],
    );
    this.#searches = new RequestMatcher(searches, { reuse: true });
  }

  get provider(): string {
    return this.#live?.provider.provider ?? this.#options.provider;
  }

  get apiKeySource(): ModelProvider['apiKeySource'] {
    return this.#live?.provider.apiKeySource ?? this.#options.apiKeySource;
  }

  /** True once the run went past the fork point. */
  get live(): boolean {
    return this.#live !== undefined;
  }

  /** From now on, requests go to the live provider (the model of the tape becomes the live model). */
  goLive(): void {
    if (!this.#options.live) throw new Error('this replay has no live provider to go on with');
    this.#live = this.#options.live;
  }

  /** The recorded provider's context window: scripted has none (Infinity), the others the price table's. */
  contextWindow(model: string): number {
    if (this.#live) return this.#live.provider.contextWindow?.(model) ?? contextWindowOf(model);
    return this.#options.provider === 'scripted' ? Infinity : contextWindowOf(model);
  }

  usageModel(asked: string, answered: string): string {
    if (this.#live) return this.#live.provider.usageModel?.(asked, answered) ?? asked;
    return this.#options.provider === 'scripted' ? answered || asked : asked;
  }

  stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    const batches = this.streamBatches(request);
    return (async function* () {
      for await (const batch of batches) yield* batch;
    })();
  }

  async *streamBatches(request: ModelRequest): AsyncGenerator<StreamEvent[]> {
    request.abortSignal.throwIfAborted();
    const live = this.#live;
    if (live) {
      const asked = request.model === this.#options.model ? { ...request, model: live.model } : request;
      if (live.provider.streamBatches) yield* live.provider.streamBatches(asked);
      else for await (const event of live.provider.stream(asked)) yield [event];
      return;
    }
    const response = this.#answer(request);
    if (response.events.length) yield response.events.map(([, event]) => event);
    if (response.error) throw replayedError(response.error);
    if (response.aborted)
      throw new ModelError({
        message: 'the tape ends here: the recorded answer was cut off (an interrupt) at this point',
        kind: 'aborted',
      });
  }

  #answer(request: ModelRequest): ModelResponseLine {
    if (this.#mismatch !== undefined) throw mismatchError(this.#mismatch);
    const canonical = canonicalRequest(request);
    const map = this.#options.toRecorded;
    const found = this.#requests.take(map ? mapStrings(canonical, map) : canonical);
    if ('miss' in found)
      throw this.#diverge(`the model request is not on the tape ${this.#options.file}: ${found.miss}`);
    if (!found.entry.value)
      throw this.#diverge(`the tape ${this.#options.file} ends inside ${found.entry.label} (no answer was recorded)`);
    return found.entry.value;
  }

  #diverge(text: string): ModelError {
    this.#mismatch = `Replay: ${text}`;
    this.#options.onMismatch(this.#mismatch);
    return mismatchError(this.#mismatch);
  }

  async webSearch(request: WebSearchRequest): Promise<unknown[]> {
    const live = this.#live;
    if (live) {
      if (!live.provider.webSearch) throw new Error(`${live.provider.provider} cannot search the web`);
      return live.provider.webSearch(request);
    }
    if (this.#mismatch !== undefined) throw mismatchError(this.#mismatch);
    const recorded = {
      model: request.model,
      query: request.query,
      ...(request.allowedDomains ? { allowed_domains: request.allowedDomains } : {}),
      ...(request.blockedDomains ? { blocked_domains: request.blockedDomains } : {}),
    };
    const map = this.#options.toRecorded;
    const found = this.#searches.take(map ? mapStrings(recorded, map) : recorded);
    if ('miss' in found) throw this.#diverge(`the web search is not on the tape ${this.#options.file}: ${found.miss}`);
    if (found.entry.value.error) throw replayedError(found.entry.value.error);
    return found.entry.value.blocks ?? [];
  }
}
