/** What the pieces of the ACP harness share: its errors, guards and grace periods. */
import { AgentpipeError } from '../../process/errors.ts';

/** SIGTERM → SIGKILL grace of the agent and of terminals. */
export const STOP_GRACE_MS = 2_000;

/** A failure to report as the prompt's outcome (never thrown out of `run`). */
export class AgentError extends AgentpipeError {
  static override readonly errorName: string = 'AgentError';
}
/** The prompt was interrupted. */
export class Aborted extends AgentpipeError {
  static override readonly errorName: string = 'Aborted';
}

export { isRecord, str } from '../../process/guards.ts';
/** An error's message with its JSON-RPC `data`, or the thrown value as text. */
export const errorText = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const data: unknown = 'data' in error ? error.data : undefined;
  const detail = data === undefined ? '' : `: ${JSON.stringify(data).slice(0, 500)}`;
  return `${error.message}${detail}`;
};
/** Settles after the microtasks queued so far (the SDK dispatches a message through several awaits). */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
