/**
 * The one builder of model requests: the loop's turns and compaction's summary send the same
 * model, system prompt, tools, token caps, thinking, effort and betas (compaction used to drop the
 * last three). On the Claude faces with Anthropic's API, thinking, effort, betas and context
 * management are Claude Code's defaults for the model under the user's own choices
 * (model/claude-code-request.ts).
 */
import type { MessageParam } from '../messages/types.ts';
import { claudeCodeRequest, type RequestDefaults } from '../model/claude-code-request.ts';
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
    ...requestChoices(ctx, model),
  };
}

/** The `max_tokens` of a request to `model`: Claude Code's for the model unless the user chose one, else ours. */
export function requestMaxTokens(ctx: AgentContext, model = ctx.model): number {
  return requestChoices(ctx, model).maxTokens ?? ctx.maxTokens;
}

/** Thinking, effort, betas (and context management) of a request to `model`: Claude Code's, or the user's alone. */
export function requestChoices(ctx: AgentContext, model = ctx.model): RequestDefaults {
  if (ctx.policy.claudeCodeRequest && ctx.provider.provider === 'anthropic')
    return claudeCodeRequest(model, {
      thinking: ctx.thinking,
      thinkingBudgetTokens: ctx.thinkingBudgetTokens,
      effort: ctx.effort,
      betas: ctx.betas,
      alwaysThinkingEnabled: ctx.claudeRequest?.alwaysThinkingEnabled,
      env: ctx.claudeRequest?.env ?? process.env,
      ...(ctx.claudeRequest?.maxTokensChosen ? { maxTokens: ctx.maxTokens } : {}),
    });
  return {
    ...(ctx.thinking ? { thinking: ctx.thinking } : {}),
    ...(ctx.effort ? { effort: ctx.effort } : {}),
    ...(ctx.betas?.length ? { betas: ctx.betas } : {}),
  };
}
