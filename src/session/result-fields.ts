/**
 * The members Claude Code 2.1.332 adds to every `result` beside the ones agentpipe always had: the fast-mode reason,
 * `modelUsage` entries with their further members (the session's running totals; the prompt's own as
 * `model_usage_since_last_result`), the queue, the result's index, the safety stops and the subagents' counts.
 */
import type { ModelUsage, ResultMessage, SubagentStats } from '../messages/types.ts';
import { canonicalModel } from '../model/claude-models.ts';
import { priceOf } from '../model/pricing.ts';

export interface ResultFieldsInput {
  /** The session's running totals per model. */
  modelUsage: Record<string, ModelUsage>;
  /** What this process counted since its previous result (the prompt's own). */
  sinceLastResult: Record<string, ModelUsage>;
  /** `anthropic`, `openai-compatible`, `scripted`: the provider the requests went to. */
  provider: string;
  /** The `max_tokens` of the requests to a model: what Claude Code reports as its `maxOutputTokens`. */
  maxTokensOf: (model: string) => number;
  resultIndex: number;
  subagents: SubagentStats;
}

type Fields = Pick<
  ResultMessage,
  | 'modelUsage'
  | 'fast_mode_disabled_reason'
  | 'model_usage_since_last_result'
  | 'queued_turn_count'
  | 'result_index'
  | 'safety_stops'
  | 'subagent_stats'
>;

export function resultFields(input: ResultFieldsInput): Fields {
  return {
    modelUsage: withMembers(input.modelUsage, input),
    fast_mode_disabled_reason: 'sdk_opt_in_required',
    model_usage_since_last_result: withMembers(input.sinceLastResult, input),
    // The session runs the queue's prompts one by one: when a result is made, the next has not been taken.
    queued_turn_count: 0,
    result_index: input.resultIndex,
    safety_stops: 0,
    subagent_stats: input.subagents,
  };
}

/** `modelUsage` entries with Claude Code 2.1.332's further members. */
function withMembers(usage: Record<string, ModelUsage>, input: ResultFieldsInput): Record<string, ModelUsage> {
  return Object.fromEntries(
    Object.entries(usage).map(([model, entry]) => [
      model,
      {
        ...entry,
        maxOutputTokens: Math.min(entry.maxOutputTokens, input.maxTokensOf(model)),
        thinkingTokens: entry.thinkingTokens ?? 0,
        cacheCreationEphemeral5mInputTokens: entry.cacheCreationInputTokens,
        cacheCreationEphemeral1hInputTokens: 0,
        canonicalModel: canonicalModel(model),
        provider: input.provider === 'anthropic' ? 'firstParty' : input.provider,
        // A model without a price costs 0 here: Claude Code calls its basis unknown.
        costBasis: priceOf(model) ? ('list' as const) : ('unknown' as const),
      },
    ]),
  );
}
