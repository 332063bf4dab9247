/** Sums usage and cost per model over a prompt (subagents included). */
import type { AssistantContentBlock, ModelUsage, ResultUsage } from '../messages/types.ts';
import { emptyResultUsage } from '../messages/usage.ts';
import { contextWindowOf, costOf, maxOutputTokensOf } from '../model/pricing.ts';

/** Plain token counts of one request. */
export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/**
 * The counts of a response an interrupt cut short, as Claude Code counts them: its `message_start` input, and its
 * output estimated from what had streamed (a token per 4 characters), at least what `message_start` said.
 */
export function cutResponseCounts(start: TokenCounts, streamed: readonly AssistantContentBlock[]): TokenCounts {
  let chars = 0;
  for (const block of streamed)
    chars +=
      block.type === 'text'
        ? block.text.length
        : block.type === 'thinking'
          ? block.thinking.length
          : block.type === 'tool_use'
            ? JSON.stringify(block.input).length
            : 0;
  return { ...start, output_tokens: Math.max(start.output_tokens, Math.round(chars / 4)) };
}

export class UsageTracker {
  readonly usage: ResultUsage = emptyResultUsage();
  readonly modelUsage: Record<string, ModelUsage> = {};
  totalCostUsd = 0;
  apiDurationMs = 0;
  /** Requests added so far, and the counts of the latest one (context size estimates). */
  requests = 0;
  last?: TokenCounts & { model: string };

  /**
   * Adds one finished request; returns its cost in USD (`reportedCostUsd` when the cost was reported, e.g. by a wrapped
   * agent CLI).
   */
  add(model: string, counts: TokenCounts, reportedCostUsd?: number): number {
    this.requests++;
    this.last = { ...counts, model };
    const cacheWrite = counts.cache_creation_input_tokens ?? 0;
    const cacheRead = counts.cache_read_input_tokens ?? 0;
    const cost =
      reportedCostUsd ??
      costOf(model, { ...counts, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead });
    this.usage.input_tokens += counts.input_tokens;
    this.usage.output_tokens += counts.output_tokens;
    this.usage.cache_creation_input_tokens += cacheWrite;
    this.usage.cache_read_input_tokens += cacheRead;
    this.usage.cache_creation.ephemeral_5m_input_tokens += cacheWrite;
    const entry = (this.modelUsage[model] ??= {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0,
      contextWindow: contextWindowOf(model),
      maxOutputTokens: maxOutputTokensOf(model),
    });
    entry.inputTokens += counts.input_tokens;
    entry.outputTokens += counts.output_tokens;
    entry.cacheReadInputTokens += cacheRead;
    entry.cacheCreationInputTokens += cacheWrite;
    entry.costUSD += cost;
    this.totalCostUsd += cost;
    return cost;
  }

  /** Adds the totals of another tracker (a finished prompt's, into the session's). */
  merge(other: UsageTracker): void {
    this.requests += other.requests;
    this.totalCostUsd += other.totalCostUsd;
    this.apiDurationMs += other.apiDurationMs;
    for (const key of [
      'input_tokens',
      'output_tokens',
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
    ] as const)
      this.usage[key] += other.usage[key];
    for (const [model, entry] of Object.entries(other.modelUsage)) {
      const mine = this.modelUsage[model];
      if (!mine) {
        this.modelUsage[model] = { ...entry };
        continue;
      }
      for (const key of [
        'inputTokens',
        'outputTokens',
        'cacheReadInputTokens',
        'cacheCreationInputTokens',
        'webSearchRequests',
        'costUSD',
      ] as const)
        mine[key] += entry[key];
    }
  }
}
