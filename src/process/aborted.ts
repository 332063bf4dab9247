/** Resolves when `signal` aborts (at once if it did): a wait that a stop ends, raced with the work it waits for. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
