/**
 * A prompt's one `result` message, in Claude Code's forms for each ending (success, an error subtype, a model request
 * that failed for good, a prompt a UserPromptSubmit hook blocked).
 */
import { resultFields } from './result-fields.ts';
import type { SessionStats } from './session-stats.ts';
import type { PermissionDenial, ResultMessage, SubagentStats } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import type { StructuredOutcome } from '../agent/structured-output.ts';
import type { UsageTracker } from '../agent/usage.ts';
import type { ModelProvider } from '../model/types.ts';

/** What of the session a result tells besides the prompt's outcome. */
export interface ResultContext {
  stats: SessionStats;
  sessionId: string;
  provider: ModelProvider['provider'];
  /** The `max_tokens` of the requests to a model. */
  maxTokensOf: (model: string) => number;
  /** `result.result_index`: results the session made before this one. */
  resultIndex: number;
}

/** The prompt's `result` (see the module's header). */
export function resultMessage(
  outcome: StructuredOutcome,
  usage: UsageTracker,
  denials: PermissionDenial[],
  durationMs: number,
  subagents: SubagentStats,
  at: ResultContext,
): ResultMessage {
  const subtype = outcome.subtype;
  const apiError = outcome.apiError;
  const totals = at.stats.totals(usage);
  const base = {
    type: 'result' as const,
    subtype,
    is_error: subtype !== 'success',
    duration_ms: durationMs,
    duration_api_ms: usage.apiDurationMs,
    num_turns: outcome.numTurns,
    stop_reason: outcome.stopReason,
    session_id: at.sessionId,
    total_cost_usd: totals.totalCostUsd,
    usage: usage.usage,
    permission_denials: denials,
    terminal_reason: apiError?.terminalReason ?? outcome.terminalReason,
    // No fast mode here: 'off', as Claude Code reports it while its fast mode is off.
    fast_mode_state: 'off' as const,
    ...resultFields({
      modelUsage: totals.modelUsage,
      sinceLastResult: usage.modelUsage,
      provider: at.provider,
      maxTokensOf: at.maxTokensOf,
      resultIndex: at.resultIndex,
      subagents,
    }),
    ...(outcome.begunMessageIds ? { begun_message_ids: outcome.begunMessageIds } : {}),
    uuid: newUuid(),
  };
  // A model request that failed for good ends as in Claude Code: a success carrying the error's text.
  if (apiError)
    return {
      ...base,
      subtype: 'success',
      is_error: true,
      api_error_status: apiError.status,
      ...(apiError.type ? { api_error_type: apiError.type } : {}),
      result: apiError.text,
    };
  if (subtype === 'success' && outcome.terminalReason === 'hook_stopped') {
    // A prompt a UserPromptSubmit hook blocked: Claude Code 2.1.332's result has no terminal_reason, no API status.
    const { terminal_reason: _none, ...rest } = base;
    return { ...rest, subtype, is_error: false, result: outcome.text };
  }
  if (subtype === 'success') {
    const timings = Object.entries(outcome.timings ?? {}).filter(([, ms]) => ms !== undefined);
    return {
      ...base,
      subtype,
      is_error: false,
      api_error_status: null,
      ...Object.fromEntries(timings),
      result: outcome.text,
      ...(outcome.structuredOutput !== undefined ? { structured_output: outcome.structuredOutput } : {}),
    };
  }
  return { ...base, subtype, is_error: true, errors: outcome.errors };
}
