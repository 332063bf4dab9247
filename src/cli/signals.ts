/** Resolves at the first SIGINT, SIGTERM or SIGHUP: the end of a long-running subcommand (serve, view). */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
  });
}
