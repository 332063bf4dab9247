/**
 * A model stream that stops sending must not hang the run: the first event must come within
 * API_TIMEOUT_MS (default 600,000 ms, as Claude Code), and each later one within
 * AGENTPIPE_STREAM_IDLE_TIMEOUT_MS (default 90,000 ms) of the one before. A stall aborts the
 * request and fails it as a retryable connection error, so the loop retries it with
 * `system/api_retry` while nothing was streamed yet, and otherwise ends the turn with an error.
 */
import { envNumber } from '../process/env-number.ts';
import { ModelError } from '../model/errors.ts';

const envMs = (name: string, fallback: number): number => envNumber(name, fallback);

/** The stream's deadlines, from the environment. */
export function stallLimits(): { firstMs: number; idleMs: number } {
  return { firstMs: envMs('API_TIMEOUT_MS', 600_000), idleMs: envMs('AGENTPIPE_STREAM_IDLE_TIMEOUT_MS', 90_000) };
}

/** Yields `source`'s events; a deadline missed aborts `request` and throws a retryable ModelError. */
export async function* watchStalls<T>(
  source: AsyncIterable<T>,
  request: AbortController,
  limits = stallLimits(),
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let first = true;
  let stalled = false;
  try {
    for (;;) {
      const ms = first ? limits.firstMs : limits.idleMs;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), ms)));
      const next = await Promise.race([iterator.next(), deadline]).finally(() => clearTimeout(timer));
      if (next === 'stalled') {
        stalled = true;
        const what = first
          ? `no response within ${ms} ms (API_TIMEOUT_MS)`
          : `no data for ${ms} ms (AGENTPIPE_STREAM_IDLE_TIMEOUT_MS)`;
        const error = new ModelError({ message: `the model stream stalled: ${what}`, kind: 'connection' });
        request.abort(error);
        throw error;
      }
      if (next.done) return;
      first = false;
      yield next.value;
    }
  } finally {
    // A stalled provider may not notice the abort at once: do not wait for it to wind down.
    if (stalled) void iterator.return?.()?.catch(() => {});
    else await iterator.return?.();
  }
}
