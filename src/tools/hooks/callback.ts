/**
 * In-process hooks: a library callback, or a callback the SDK client registered in `initialize`
 * (run through a `hook_callback` control request). Both get a signal that fires at the timeout
 * or on interrupt; a callback that never settles is abandoned at its timeout, never waited on.
 */
import type { HookCallback, HookHandler, HookRun } from './types.ts';

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** Wraps a library callback. */
export function callbackHook(
  callback: HookCallback,
  timeoutMs: number,
  label = callback.name || 'callback',
): HookHandler {
  return {
    label,
    timeoutMs,
    run: (input, toolUseId, signal) =>
      runWithTimeout(timeoutMs, signal, (s) => callback(input, toolUseId, { signal: s })),
  };
}

/** Sends `hook_callback` to the SDK client; its answer is the hook output. */
export type HookRequester = (
  request: { subtype: 'hook_callback'; callback_id: string; input: Record<string, unknown>; tool_use_id?: string },
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

export function clientHook(callbackId: string, timeoutMs: number, request: HookRequester): HookHandler {
  return {
    label: callbackId,
    timeoutMs,
    run: (input, toolUseId, signal) =>
      runWithTimeout(timeoutMs, signal, (s) =>
        request(
          {
            subtype: 'hook_callback',
            callback_id: callbackId,
            input,
            ...(toolUseId ? { tool_use_id: toolUseId } : {}),
          },
          s,
        ),
      ),
  };
}

async function runWithTimeout(
  timeoutMs: number,
  outer: AbortSignal,
  body: (signal: AbortSignal) => Promise<unknown>,
): Promise<HookRun> {
  const controller = new AbortController();
  const onOuter = () => controller.abort(outer.reason);
  outer.addEventListener('abort', onOuter, { once: true });
  if (outer.aborted) onOuter();
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<'timeout' | 'cancelled'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException('hook timed out', 'TimeoutError'));
      resolve('timeout');
    }, timeoutMs);
    controller.signal.addEventListener('abort', () => resolve(outer.aborted ? 'cancelled' : 'timeout'), { once: true });
  });
  try {
    const result = await Promise.race([body(controller.signal).then((value) => ({ value })), stopped]);
    if (result === 'timeout')
      return {
        stdout: '',
        stderr: `Hook timed out after ${timeoutMs / 1000}s`,
        outcome: 'error',
        exitCode: 1,
        timedOut: true,
      };
    if (result === 'cancelled') return { stdout: '', stderr: '', outcome: 'cancelled' };
    const output = result.value && typeof result.value === 'object' ? result.value : undefined;
    return { output, stdout: output ? JSON.stringify(output) : '', stderr: '', exitCode: 0, outcome: 'success' };
  } catch (error) {
    if (outer.aborted) return { stdout: '', stderr: '', outcome: 'cancelled' };
    return {
      stdout: '',
      stderr: error instanceof Error ? error.message : String(error),
      outcome: 'error',
      exitCode: 1,
    };
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onOuter);
  }
}
