/**
 * A model stream that stops sending must not hang the run: the first item must come within
 * API_TIMEOUT_MS (default 600,000 ms, as Claude Code), and each later one within
 * AGENTPIPE_STREAM_IDLE_TIMEOUT_MS (default 90,000 ms) of the one before. The HTTP providers' first
 * item is the empty batch that says the response headers came (http-stream.ts), so from the
 * headers on the idle limit applies. A stall aborts the request and fails it as a retryable
 * connection error, so the loop retries it with `system/api_retry` while nothing was streamed yet,
 * and otherwise ends the turn with an error.
 */
import { monotonicMs } from '../process/clock.ts';
import { envNumber } from '../process/env-number.ts';
import { ModelError } from '../model/errors.ts';

const envMs = (name: string, fallback: number): number => envNumber(name, fallback);

/** The stream's deadlines, from the environment. */
export function stallLimits(): { firstMs: number; idleMs: number } {
  return { firstMs: envMs('API_TIMEOUT_MS', 600_000), idleMs: envMs('AGENTPIPE_STREAM_IDLE_TIMEOUT_MS', 90_000) };
}

/**
 * Yields `source`'s events; a deadline missed aborts `request` and throws a retryable ModelError.
 * Only time spent waiting for the source counts, not the time the consumer holds an event.
 * One timer watches the whole stream: a wait only notes when it began, and the timer, when it
 * fires, re-arms itself for what is left of the deadline. It is an iterator, not a generator:
 * a timer, a race and a generator step per event cost a fifth of the delta rate.
 */
export function watchStalls<T>(
  source: AsyncIterable<T>,
  request: AbortController,
  limits: { firstMs: number; idleMs: number; now?: () => number } = stallLimits(),
): AsyncIterableIterator<T> {
  const now = limits.now ?? monotonicMs;
  const iterator = source[Symbol.asyncIterator]();
  let first = true;
  let finished = false;
  /** When the current wait for the source began; undefined while the consumer holds an event. */
  let waitingSince: number | undefined;
  /** Ends the current wait as stalled. */
  let stall: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const limit = first ? limits.firstMs : limits.idleMs;
    const quiet = waitingSince === undefined ? 0 : now() - waitingSince;
    if (quiet >= limit) stall?.();
    else timer = setTimeout(check, limit - quiet);
  };
  const finish = (): void => {
    finished = true;
    clearTimeout(timer);
  };
  const watched: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => watched,
    next: () => {
      if (finished) return Promise.resolve({ done: true, value: undefined });
      timer ??= setTimeout(check, limits.firstMs);
      waitingSince = now();
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        stall = () => {
          const what = first
            ? `no response within ${limits.firstMs} ms (API_TIMEOUT_MS)`
            : `no data for ${limits.idleMs} ms (AGENTPIPE_STREAM_IDLE_TIMEOUT_MS)`;
          const error = new ModelError({ message: `the model stream stalled: ${what}`, kind: 'connection' });
          finish();
          request.abort(error);
          // A stalled provider may not notice the abort at once: do not wait for it to wind down.
          void iterator.return?.()?.catch(() => {});
          reject(error);
        };
        iterator.next().then(
          (result) => {
            waitingSince = undefined;
            stall = undefined;
            if (finished) return;
            if (result.done) finish();
            else if (first) {
              // From the first event on, the (shorter) idle deadline applies.
              first = false;
              clearTimeout(timer);
              timer = setTimeout(check, limits.idleMs);
            }
            resolve(result);
          },
          (error: unknown) => {
            stall = undefined;
            if (finished) return;
            finish();
            reject(error);
          },
        );
      });
    },
    return: async (value?: unknown) => {
      if (!finished) {
        finish();
        await iterator.return?.(value);
      }
      return { done: true, value: undefined };
    },
  };
  return watched;
}
