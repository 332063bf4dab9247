/**
 * The retry policies of model requests. `loop.ts` `requestWithRetry` is the one place that retries a model request;
 * it asks the session's outcome policy (outcome-policy.ts), which holds one of these.
 *
 * - Claude Code 2.1.332's (measured with the differential suite: test/compat/suite, errors/*): up to 10 retries, of
 *   a 401 (Claude Code refreshes the key and asks again), 408, 409, 429, every 5xx and 529, and a cut or refused
 *   connection; never of another 4xx (a 403 included). The wait is the server's `retry-after` when it sent one,
 *   otherwise 500 ms doubling per retry up to 32 s, less up to a quarter at random so that many clients do not come
 *   back at the same moment.
 *   A stream cut after its answer began is sent again twice more, apart from those retries, while nothing of the
 *   answer reached the client (measured: errors/cut-stream, with CLAUDE_CODE_MAX_RETRIES=0).
 * - agentpipe's own (the Codex and ACP faces): up to 3 retries of a 429, 5xx, 529 or a cut connection only; the
 *   server's `retry-after` or 500 ms doubling up to 30 s.
 */
import { ModelError } from '../model/errors.ts';
import type { ApiRetryMessage } from '../messages/types.ts';

/** When and how often a failed model request is asked again. */
export interface RetryPolicy {
  /** Retries when neither the session's `maxRetries` nor CLAUDE_CODE_MAX_RETRIES says. */
  readonly defaultMaxRetries: number;
  /**
   * Times a request is sent again, apart from `maxRetries`, when its stream was cut after the answer began but before
   * any of it reached the client (no block ended, no partial messages): Claude Code 2.1.332 does twice.
   */
  readonly cutStreamResends: number;
  /** True when a failed request is worth asking again (nothing of its answer was streamed yet: the caller checks). */
  shouldRetry(error: unknown): error is ModelError;
  /**
   * How long to wait before retry number `attempt + 1` (`attempt` counts from 0). `random` is injectable for tests.
   */
  delayMs(error: ModelError, attempt: number, random?: () => number): number;
}

/** Statuses Claude Code retries besides 429 and 5xx (ModelError.retryable's kinds). */
const CLAUDE_CODE_RETRIED_STATUSES = new Set([401, 408, 409]);

/** Claude Code 2.1.332's retries. */
export const CLAUDE_CODE_RETRIES: RetryPolicy = {
  defaultMaxRetries: 10,
  cutStreamResends: 2,
  shouldRetry(error: unknown): error is ModelError {
    if (!ModelError.isInstance(error)) return false;
    return error.retryable || (error.status !== undefined && CLAUDE_CODE_RETRIED_STATUSES.has(error.status));
  },
  delayMs(error, attempt, random = Math.random) {
    if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, 32_000);
    const backoff = Math.min(500 * 2 ** attempt, 32_000);
    return Math.round(backoff * (1 - random() * 0.25));
  },
};

/** agentpipe's own retries (the Codex and ACP faces). */
export const AGENTPIPE_RETRIES: RetryPolicy = {
  defaultMaxRetries: 3,
  cutStreamResends: 0,
  shouldRetry: (error: unknown): error is ModelError => ModelError.isInstance(error) && error.retryable,
  delayMs: (error, attempt) => Math.min(error.retryAfterMs ?? 500 * 2 ** attempt, 30_000),
};

/** The `error` of a `system/api_retry` message, as Claude Code names the failure it retries. */
export function retryErrorName(error: ModelError): ApiRetryMessage['error'] {
  if (error.status === 401) return 'authentication_failed';
  if (error.kind === 'rate_limit' || error.kind === 'overloaded' || error.kind === 'server_error') return error.kind;
  // 408 and 409: Claude Code reports them as server errors.
  if (error.status === 408 || error.status === 409) return 'server_error';
  return 'unknown';
}

/**
 * `error` when it is a stream cut that may be sent again apart from the retries: the answer began (`started`), none of
 * it reached the client (`shown` false: no block ended, no partial messages), and `resent` is under the policy's count.
 */
export function resendableCut(
  policy: RetryPolicy,
  error: unknown,
  state: { started: boolean; shown: boolean; resent: number },
): ModelError | undefined {
  if (!ModelError.isInstance(error) || !state.started || state.shown) return undefined;
  // After the answer began, a connection that failed (reset, closed) cut the stream as much as one that ended early.
  if (error.fault !== 'cut' && error.kind !== 'connection') return undefined;
  return state.resent < policy.cutStreamResends ? error : undefined;
}
