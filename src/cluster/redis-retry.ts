/**
 * The one way the cluster waits out a lost Redis connection: a command that failed because the
 * connection did (a RedisConnectionError, or ioredis's own error under BullMQ) is tried again
 * with capped backoff, while the caller's bound holds; any other error is thrown at once, as is
 * the last connection error once the bound is spent. With `forMs`, an attempt still waiting when
 * the time is up is given up too (ioredis holds a command while it reconnects, each time longer):
 * such a command may still run once Redis is back, so what is retried must be harmless to land
 * late and twice (the log's appends are idempotent by uuid, a warm claim by its line; an inbox
 * push may land twice if its answer was lost: the worker's reader skips a prompt it has run).
 */
import { sleep } from '../process/retry.ts';
import { monotonicMs } from '../process/clock.ts';
import { isConnectionFailure, reconnectDelay, RedisConnectionError } from './connection.ts';

/** How long a retry goes on. */
export interface RetryBound {
  /** Gives up this long after the first attempt started. */
  forMs?: number;
  /** Gives up once this says no (a lease that may be lost, a run being stopped). */
  while?: () => boolean;
  /** Gives up at once when aborted. */
  signal?: AbortSignal;
}

const retryable = (error: unknown): boolean => RedisConnectionError.isInstance(error) || isConnectionFailure(error);

/** Runs `command`, retrying it through lost connections within `bound`. */
export async function retryRedis<T>(command: () => Promise<T>, bound: RetryBound): Promise<T> {
  const started = monotonicMs();
  /** The last failure Redis itself gave (more telling than an attempt given up on). */
  let said: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      const left = bound.forMs === undefined ? undefined : bound.forMs - (monotonicMs() - started);
      return await (left === undefined ? command() : within(command(), Math.max(0, left)));
    } catch (error) {
      if (!retryable(error)) throw error;
      if (!GivenUp.isInstance(error)) said = error;
      const delay = reconnectDelay(attempt);
      const spent = bound.forMs !== undefined && monotonicMs() - started + delay > bound.forMs;
      if (spent || bound.signal?.aborted || (bound.while && !bound.while())) throw said ?? error;
      await sleep(delay, { signal: bound.signal, onAbort: 'resolve' });
    }
  }
}

/** An attempt given up on: Redis did not answer in the time left. */
class GivenUp extends RedisConnectionError {
  static override readonly errorName: string = 'RedisGivenUpError';
}

/** `pending`, or a GivenUp once `ms` passed without an answer. */
function within<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new GivenUp(`Redis did not answer within ${Math.round(ms)} ms (unreachable?)`)),
      ms,
    );
    timer.unref();
  });
  pending.catch(() => undefined); // given up on: its own failure is not this one's
  return Promise.race([pending, late]).finally(() => clearTimeout(timer));
}
