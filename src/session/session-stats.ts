/** What a whole session did, for `get_usage` and `get_session_cost`: usage per model, time, lines changed. */
import type { AgentMessage, ModelUsage } from '../messages/types.ts';
import { UsageTracker } from '../agent/usage.ts';
import { isArray, isRecord } from '../process/guards.ts';

/** The totals a resumed session's transcript saved (its last result's `modelUsage` and `total_cost_usd`). */
export interface SavedUsage {
  modelUsage: Record<string, ModelUsage>;
  totalCostUsd: number;
}

export class SessionStats {
  /** Tokens and cost of every finished prompt of this process. */
  readonly usage = new UsageTracker();
  /** What the earlier processes of a resumed (or forked) session spent, as its transcript saved it. */
  readonly #carried = new UsageTracker();
  /** Wall time of every finished prompt. */
  durationMs = 0;
  linesAdded = 0;
  linesRemoved = 0;

  /** Counts the lines an Edit or Write changed, from its `tool_use_result` (the patch, or a new file's content). */
  observe(message: AgentMessage): void {
    if (message.type !== 'user' || !isRecord(message.tool_use_result)) return;
    const result = message.tool_use_result;
    // A created file's patch is empty (as in Claude Code): each of its lines is added.
    if (result.type === 'create' && typeof result.content === 'string') {
      this.linesAdded +=
        result.content === '' ? 0 : result.content.split('\n').length - (result.content.endsWith('\n') ? 1 : 0);
      return;
    }
    const patch = result.structuredPatch;
    if (!isArray(patch)) return;
    for (const hunk of patch) {
      if (!isRecord(hunk) || !isArray(hunk.lines)) continue;
      for (const line of hunk.lines) {
        if (typeof line !== 'string') continue;
        if (line.startsWith('+')) this.linesAdded++;
        else if (line.startsWith('-')) this.linesRemoved++;
      }
    }
  }

  /** Goes on from the totals a resumed session's transcript saved. */
  carry(saved: SavedUsage): void {
    this.#carried.totalCostUsd = saved.totalCostUsd;
    for (const [model, u] of Object.entries(saved.modelUsage)) {
      const { inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens, webSearchRequests } = u;
      this.#carried.modelUsage[model] = {
        ...{ inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens, webSearchRequests },
        ...{ costUSD: u.costUSD, contextWindow: u.contextWindow, maxOutputTokens: u.maxOutputTokens },
      };
    }
  }

  /**
   * The session's running totals with `prompt` (not yet added) counted: what a result's `modelUsage` and
   * `total_cost_usd` say, as in Claude Code 2.1.332 (cumulative across prompts, and across a resume).
   */
  totals(prompt: UsageTracker): UsageTracker {
    const totals = new UsageTracker();
    totals.merge(this.#carried);
    totals.merge(this.usage);
    totals.merge(prompt);
    return totals;
  }

  /** Adds a finished prompt. */
  addPrompt(usage: UsageTracker, durationMs: number): void {
    this.usage.merge(usage);
    this.durationMs += durationMs;
  }
}
