/**
 * The one way the cluster waits out a lost Redis connection: a command that failed because the
 * connection did (a RedisConnectionError, or ioredis's own error under BullMQ) is tried again
 * with capped backoff, while the caller's bound holds; any other error is thrown at once, as is
 * the last connection error once the bound is spent. Writes retried so must be idempotent (the
 * log's appends are, by uuid; a warm claim is, by its line; an inbox push may land twice if its
 * answer was lost: the worker's reader skips a prompt it has run).
 */
import { monotonicMs } from '../process/clock.ts';
import { isConnectionFailure, pause, reconnectDelay, RedisConnectionError } from './connection.ts';

/** How long a retry goes on. */
export interface RetryBound {
  /** Gives up this long after the first failure. */
  forMs?: number;
  /** Gives up once this says no (a lease that may be lost, a run being stopped). */
  while?: () => boolean;
  /** Gives up at once when aborted. */
  signal?: AbortSignal;
  /** Told of each failure that is retried (once per outage is the caller's business). */
  onRetry?: (error: unknown, attempt: number) => void;
}

/** Runs `command`, retrying it through lost connections within `bound`. */
export async function retryRedis<T>(command: () => Promise<T>, bound: RetryBound): Promise<T> {
  let since: number | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      return await command();
    } catch (error) {
      if (!(error instanceof RedisConnectionError) && !isConnectionFailure(error)) throw error;
      since ??= monotonicMs();
      const delay = reconnectDelay(attempt);
      const spent = bound.forMs !== undefined && monotonicMs() - since + delay > bound.forMs;
      if (spent || bound.signal?.aborted || (bound.while && !bound.while())) throw error;
      bound.onRetry?.(error, attempt);
      await pause(delay, bound.signal);
    }
  }
}
