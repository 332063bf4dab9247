/**
 * The one sleep and the one retry loop outside src/cluster: wait for something another process
 * writes (a wrapped CLI's session recording), or try again after a failure, with a growing delay.
 */
import { setTimeout as wait } from 'node:timers/promises';

/**
 * Resolves after `ms`; rejects with an AbortError (`cause`: the signal's reason) when `signal`
 * aborts first. The timer holds the process open (a run waiting for a file must not end for want
 * of other work).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return wait(ms, undefined, signal ? { signal } : {});
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
  const pause = o.sleep ?? sleep;
  let delay = o.delayMs;
  for (let n = 0; ; n++) {
    const value = await attempt(n);
    if (value !== undefined || n + 1 >= o.attempts) return value;
    await pause(delay, o.signal);
    delay = Math.min(delay * (o.factor ?? 1), o.maxDelayMs ?? Infinity);
  }
}
