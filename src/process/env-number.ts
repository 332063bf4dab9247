/** Numbers from the environment (timeouts, caps, limits): one parser for every setting. */

/**
 * The positive number in environment variable `name`, or `fallback` when it is unset, not a
 * number, not above zero, or (with `integer`) not whole.
 */
export function envNumber(
  name: string,
  fallback: number,
  options: { integer?: boolean; env?: NodeJS.ProcessEnv } = {},
): number {
  const raw = (options.env ?? process.env)[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  const valid = options.integer ? Number.isInteger(value) : Number.isFinite(value);
  return valid && value > 0 ? value : fallback;
}

/** The longest delay a Node timer holds (about 24.8 days): a longer one fires at once (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration in ms from environment variable `name`, as envNumber reads it, at most MAX_TIMER_MS: a timer or
 * AbortSignal.timeout given more would fire at once, so a huge setting would end what it should let run.
 */
export function envMs(name: string, fallback: number, options: { env?: NodeJS.ProcessEnv } = {}): number {
  return Math.min(envNumber(name, fallback, options), MAX_TIMER_MS);
}

/** The whole number (zero allowed) in environment variable `name`, or `fallback` when it is unset or not one. */
export function envCount(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
}
