/**
 * Automatic compaction of the main agent's history, checked before each model request. The
 * context size is estimated from the last request's usage (input + cache + output tokens)
 * plus what was added since, or from the history's length when no request was made yet.
 * At 90% of the window (`maxContextTokens`, else the model's), older turns are summarized.
 * A provider may report its own window (the scripted one has none: it compacts only with an
 * explicit `maxContextTokens`, so scripts stay predictable).
 */
import type { MessageParam } from '../messages/types.ts';
import { contextWindowOf } from '../model/pricing.ts';
import type { ModelProvider } from '../model/types.ts';
import type { AgentContext } from './context.ts';
import { currentModel } from './fallback.ts';
import { compactHistory, estimateTokens, lastSafeCut, type CompactRun } from './compact.ts';
import type { TokenCounts, UsageTracker } from './usage.ts';

export const AUTO_COMPACT_RATIO = 0.9;

export class AutoCompactor {
  readonly #history: MessageParam[];
  readonly #maxContextTokens?: number;
  /** Requests in the tracker before our latest request (-1: unknown), and the history length it was sent with. */
  #countBefore = -1;
  #sentLength = -1;
  #carried?: TokenCounts & { model: string };

  constructor(history: MessageParam[], maxContextTokens?: number) {
    this.#history = history;
    this.#maxContextTokens = maxContextTokens;
  }

  /** The window compaction aims under: `maxContextTokens`, else the provider's, else the price table's. */
  windowOf(model: string, provider?: ModelProvider): number {
    return this.#maxContextTokens ?? provider?.contextWindow?.(model) ?? contextWindowOf(model);
  }

  /** Estimated tokens of the next request, and the model whose window applies (the one that answered last). */
  estimate(ctx: AgentContext, usage?: UsageTracker, model = ctx.model): { tokens: number; model: string } {
    const history = this.#history;
    const last =
      usage && usage.requests === this.#countBefore + 1 && this.#countBefore >= 0
        ? usage.last
        : usage?.requests === 0
          ? this.#carried
          : undefined;
    if (!last || this.#sentLength < 0 || this.#sentLength > history.length) {
      return { tokens: estimateTokens(ctx.system) + estimateTokens(history), model };
    }
    const used =
      last.input_tokens +
      (last.cache_read_input_tokens ?? 0) +
      (last.cache_creation_input_tokens ?? 0) +
      last.output_tokens;
    // The entry right after the sent history is the answer, already counted as output.
    return { tokens: used + estimateTokens(history.slice(this.#sentLength + 1)), model: last.model || model };
  }

  /** Called by the loop before each request. */
  async beforeRequest(ctx: AgentContext, history: MessageParam[], run: CompactRun): Promise<void> {
    if (history !== this.#history || ctx.parentToolUseId !== null) return;
    const model = currentModel(ctx, run);
    if (!Number.isFinite(this.windowOf(model, ctx.provider))) return; // no window, nothing to estimate
    const estimate = this.estimate(ctx, run.usage, model);
    const tokens = estimate.tokens;
    const threshold = Math.floor(this.windowOf(estimate.model, ctx.provider) * AUTO_COMPACT_RATIO);
    if (Number.isFinite(threshold) && tokens >= threshold) {
      const cut = lastSafeCut(history);
      // Keep the current turn when it is small; else summarize everything.
      const keepFrom = cut > 0 && estimateTokens(history.slice(cut)) < threshold / 2 ? cut : history.length;
      const result = await compactHistory(ctx, history, run, { trigger: 'auto', preTokens: tokens, keepFrom });
      if (!result.ok) ctx.warn(`automatic compaction skipped: ${result.error}`);
      this.#carried = undefined;
      this.#countBefore = -1;
    }
    this.#countBefore = run.usage.requests;
    this.#sentLength = history.length;
  }

  /** Called after each prompt: the last request's counts carry over to the next prompt's tracker. */
  afterPrompt(usage: UsageTracker): void {
    this.#carried = usage.requests === this.#countBefore + 1 ? usage.last : undefined;
    this.#countBefore = -1;
  }

  /** Forget the measurements (the history was replaced by a manual compaction). */
  reset(): void {
    this.#carried = undefined;
    this.#countBefore = -1;
    this.#sentLength = -1;
  }
}
