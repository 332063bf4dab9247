/**
 * A monotonic clock in milliseconds, like `performance.now()` but without touching the global
 * `performance`: its first use loads node:perf_hooks (~2 ms of every CLI start-up).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
