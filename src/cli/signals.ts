/** Resolves at the first SIGINT or SIGTERM: the end of a long-running subcommand (serve, view). */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
