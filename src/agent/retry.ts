/**
 * The retry policy of model requests, as Claude Code 2.1.332 has it (measured with the differential suite:
 * test/compat/suite, errors/*): up to 10 retries (CLAUDE_CODE_MAX_RETRIES), of a 401 (Claude Code refreshes the
 * key and asks again), 408, 409, 429, every 5xx and 529, and a cut or refused connection; never of another 4xx (a
 * 403 included). The wait is the server's `retry-after` when it sent one, otherwise 500 ms doubling per retry up
 * to 32 s, less up to a quarter at random so that many clients do not come back at the same moment.
 * `loop.ts` `requestWithRetry` is the one place that retries a model request; it asks this module.
 */
import { ModelError } from '../model/errors.ts';
import type { ApiRetryMessage } from '../messages/types.ts';

/** Retries of a failed model request when CLAUDE_CODE_MAX_RETRIES does not say (Claude Code's default). */
export const DEFAULT_MAX_RETRIES = 10;

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 32_000;
/** Statuses retried besides 429 and 5xx (ModelError.retryable's kinds). */
const RETRIED_STATUSES = new Set([401, 408, 409]);

/** True when a failed request is worth asking again (nothing of its answer was streamed yet: the caller checks). */
export function shouldRetry(error: unknown): error is ModelError {
  if (!ModelError.isInstance(error)) return false;
  return error.retryable || (error.status !== undefined && RETRIED_STATUSES.has(error.status));
}

/**
 * How long to wait before retry number `attempt + 1` (`attempt` counts from 0): the server's `retry-after`, else
 * the backoff. `random` is injectable for tests.
 */
export function retryDelayMs(error: ModelError, attempt: number, random: () => number = Math.random): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, MAX_DELAY_MS);
  const backoff = Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_DELAY_MS);
  return Math.round(backoff * (1 - random() * 0.25));
}

/** The `error` of a `system/api_retry` message, as Claude Code names the failure it retries. */
export function retryErrorName(error: ModelError): ApiRetryMessage['error'] {
  if (error.status === 401) return 'authentication_failed';
  if (error.kind === 'rate_limit' || error.kind === 'overloaded' || error.kind === 'server_error') return error.kind;
  // 408 and 409: Claude Code reports them as server errors.
  if (error.status === 408 || error.status === 409) return 'server_error';
  return 'unknown';
}
