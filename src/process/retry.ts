/**
 * The one sleep, the one bounded wait and the one retry loop of src/ (the cluster's Redis retries
 * build on the sleep): wait for something another process writes (a wrapped CLI's session
 * recording), wait a bounded time for a process or a flush, or try again after a failure, with a
 * growing delay.
 */
import { setTimeout as wait } from 'node:timers/promises';

/** How `sleep` waits. */
export interface SleepOptions {
  /** Ends the wait early: with an AbortError (`cause`: the signal's reason), or quietly with `onAbort: 'resolve'`. */
  signal?: AbortSignal;
  /** What an abort does to the sleep (default `'reject'`). */
  onAbort?: 'reject' | 'resolve';
  /**
   * Whether the timer holds the process open (default true: a run waiting for a file must not end for want of other
   * work; false for a grace period that must not delay an exit).
   */
  ref?: boolean;
}

/** Resolves after `ms` (see SleepOptions for an abort and the process's exit). */
export function sleep(ms: number, o: SleepOptions = {}): Promise<void> {
  const waiting = wait(ms, undefined, { ref: o.ref ?? true, ...(o.signal ? { signal: o.signal } : {}) });
  // Only an abort rejects the wait: with onAbort 'resolve' it ends it like the time would.
  return o.onAbort === 'resolve' ? waiting.catch(() => undefined) : waiting;
}

/**
 * `promise`'s value, or undefined when it has not settled within `ms` (a grace period: the timer never holds the
 * process open and is cleared as soon as `promise` wins). A rejection of `promise` propagates.
 */
export async function atMost<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const stop = new AbortController();
  try {
    const late = sleep(ms, { signal: stop.signal, onAbort: 'resolve', ref: false }).then(() => undefined);
    return await Promise.race([promise, late]);
  } finally {
    stop.abort();
  }
}

/** How `retry` tries. */
export interface RetryOptions {
  /** Tries in all (at least one). */
  attempts: number;
  /** Wait before the second try (ms). */
  delayMs: number;
  /** Each wait is the previous one times this (default 1: a fixed interval). */
  factor?: number;
  /** Longest wait (ms). */
  maxDelayMs?: number;
  /** Stops the waiting: `retry` then rejects with the sleep's AbortError. */
  signal?: AbortSignal;
  /** The sleep (tests pass one that does not wait). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Calls `attempt` (with its 0-based number) until it gives a value other than undefined, at most
 * `attempts` times, sleeping between tries; undefined when no try gave one. What `attempt` throws
 * propagates: catch inside it what is worth another try.
 */
export async function retry<T>(
  attempt: (n: number) => Promise<T | undefined>,
  o: RetryOptions,
): Promise<T | undefined> {
  const pause = o.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, signal ? { signal } : {}));
  let delay = o.delayMs;
  for (let n = 0; ; n++) {
    const value = await attempt(n);
    if (value !== undefined || n + 1 >= o.attempts) return value;
    await pause(delay, o.signal);
    delay = Math.min(delay * (o.factor ?? 1), o.maxDelayMs ?? Infinity);
  }
}
