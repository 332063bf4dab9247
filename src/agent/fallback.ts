/**
 * `--fallback-model`: when a request fails on its model (overloaded, unknown model, server
 * errors after the retries) and nothing was streamed yet, the request is sent again to the next
 * fallback model, which then serves the rest of the prompt. A `system/model_fallback` message
 * says so. The session returns to its own model at the next prompt (as the official SDK documents).
 */
import { newUuid } from '../messages/ids.ts';
import { isKeyOf } from '../process/guards.ts';
import type { ModelError } from '../model/errors.ts';
import type { AgentContext } from './context.ts';
import type { RunState } from './loop.ts';

const TRIGGERS = {
  overloaded: 'is overloaded',
  model_not_found: 'was not found',
  server_error: 'keeps failing with server errors',
} as const;

/** Splits `--fallback-model a,b` into the models to try in order. */
export function parseFallbackModels(value: string | undefined): string[] | undefined {
  const models = value
    ?.split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  return models?.length ? models : undefined;
}

/**
 * The model the prompt's requests use: the session's (`ctx.model`), or the fallback model that
 * replaced it for this prompt. A `set_model` during the prompt wins over an earlier fallback.
 */
export function currentModel(ctx: Pick<AgentContext, 'model'>, run: Pick<RunState, 'fallback'>): string {
  return run.fallback && run.fallback.from === ctx.model ? run.fallback.to : ctx.model;
}

/**
 * Moves the prompt on to the next fallback model if this failure calls for one, noted in the
 * run's state (the session's own model is untouched, so the next prompt uses it again); true
 * when it did.
 */
export async function fallBack(
  ctx: Pick<AgentContext, 'model' | 'fallbackModels' | 'debug' | 'emit' | 'sessionId'>,
  error: ModelError | undefined,
  run: Pick<RunState, 'fallback'>,
): Promise<boolean> {
  const models = ctx.fallbackModels;
  if (!error || !models?.length) return false;
  const trigger = error.kind;
  if (!isKeyOf(TRIGGERS, trigger)) return false;
  const original = currentModel(ctx, run);
  const next = models.slice(models.indexOf(original) + 1).find((m) => m !== original);
  if (next === undefined) return false;
  run.fallback = { from: ctx.model, to: next };
  ctx.debug?.(
    'api',
    `falling back from ${original} to ${next} (${trigger}${error.status ? `, status ${error.status}` : ''})`,
  );
  await ctx.emit({
    type: 'system',
    subtype: 'model_fallback',
    trigger,
    original_model: original,
    fallback_model: next,
    error_status: error.status ?? null,
    error: error.message,
    content: `Switched to ${next}: ${original} ${TRIGGERS[trigger]}`,
    uuid: newUuid(),
    session_id: ctx.sessionId,
  });
  return true;
}
