/**
 * The one builder of model requests: the loop's turns and compaction's summary send the same
 * model, system prompt, tools, token caps, thinking, effort and betas (compaction used to drop the
 * last three).
 */
import type { MessageParam } from '../messages/types.ts';
import type { ModelRequest } from '../model/types.ts';
import type { AgentContext } from './context.ts';

/** The request for `messages` (already merged) with the context's settings. */
export function modelRequest(
  ctx: AgentContext,
  messages: MessageParam[],
  abortSignal: AbortSignal,
  model = ctx.model,
): ModelRequest {
  return {
    model,
    system: ctx.outputStyle && !ctx.agent ? `${ctx.system}\n\n${ctx.outputStyle}` : ctx.system,
    messages,
    tools: ctx.tools.map((t) => ({
      name: t.modelName ?? t.name,
      description: t.description,
      input_schema: t.inputSchema,
    })),
    maxTokens: ctx.maxTokens,
    thinkingBudgetTokens: ctx.thinkingBudgetTokens,
    abortSignal,
    ...(ctx.thinking ? { thinking: ctx.thinking } : {}),
    ...(ctx.effort ? { effort: ctx.effort } : {}),
    ...(ctx.betas?.length ? { betas: ctx.betas } : {}),
  };
}
