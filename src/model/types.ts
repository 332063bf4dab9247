/**
 * The provider contract (types only, versioned). Every provider streams Anthropic-style raw
 * events, whatever its wire API: the agent loop, `stream_event` output and every projection
 * then speak one event union.
 */
import type { MessageParam, StreamEvent } from '../messages/types.ts';

/** The effort levels, lowest first: the one list `--effort`, the settings' `effortLevel` and tapes check against. */
export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** How hard the model should work (Anthropic `output_config.effort`, OpenAI `reasoning_effort`). */
export type EffortLevel = (typeof EFFORT_LEVELS)[number];

/** How thinking comes back (Anthropic's `thinking.display`), as a user or client may ask for it. */
export const THINKING_DISPLAYS = ['summarized', 'omitted'] as const;
export type ThinkingDisplay = (typeof THINKING_DISPLAYS)[number];

/**
 * The displays a request may carry: the user's, or `updates`, which Claude Code 2.1.332 asks for by default (with
 * the `thinking-display-updates-2026-08-18` beta; claude-code-request.ts).
 */
export type RequestThinkingDisplay = ThinkingDisplay | 'updates';

/** Thinking, as the official SDK's `thinking` option spells it. */
export type ThinkingConfig =
  | { type: 'adaptive'; display?: RequestThinkingDisplay }
  | { type: 'enabled'; budgetTokens?: number; display?: RequestThinkingDisplay }
  | { type: 'disabled' };

/** Anthropic's `context_management` (what the API may clear from the context), as Claude Code sends it. */
export interface ContextManagement {
  edits: Array<{ type: string; keep?: string }>;
}

/** A tool as offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** Everything one model request needs. */
export interface ModelRequest {
  /** Model id as the provider knows it. */
  model: string;
  /** System prompt ('' for none). */
  system: string;
  /** The conversation so far, Anthropic `MessageParam` shape, alternating roles. */
  messages: MessageParam[];
  /** Tools the model may call. */
  tools: ToolSpec[];
  /** Output token cap. */
  maxTokens: number;
  /** Extended thinking budget, when enabled (`thinking` wins when both are set). */
  thinkingBudgetTokens?: number;
  /** Thinking mode: adaptive, enabled with a budget, or disabled. */
  thinking?: ThinkingConfig;
  /** Reasoning effort. */
  effort?: EffortLevel;
  /** Anthropic beta names, sent as the `anthropic-beta` header. */
  betas?: string[];
  /** Anthropic `context_management`. */
  contextManagement?: ContextManagement;
  /**
   * A 400 is answered by sending the request again without each optional beta in turn, as Claude Code does for
   * gateways that refuse one (beta-fallback.ts); Anthropic only.
   */
  betaFallback?: boolean;
  /** Aborts the request, including a stream in flight. */
  abortSignal: AbortSignal;
}

/** One server-side web search (Anthropic's `web_search_20250305` tool) for the WebSearch tool. */
export interface WebSearchRequest {
  model: string;
  query: string;
  allowedDomains?: string[];
  blockedDomains?: string[];
  signal: AbortSignal;
}

/** A model provider. `stream()` yields raw events and throws `ModelError` on failure. */
export interface ModelProvider {
  readonly specificationVersion: 'v1';
  /** `scripted`, `anthropic` or `openai-compatible`. */
  readonly provider: string;
  /** Where the credentials came from (reported in `system/init`). */
  readonly apiKeySource: 'ANTHROPIC_API_KEY' | 'apiKeyHelper' | 'none' | 'user';
  /** True when the requests go to Anthropic's own API, not a gateway or another base URL (`served_by_anthropic`). */
  readonly servedByAnthropic?: boolean;
  /** The base URL's host when the requests go through another host than Anthropic's (a gateway, a proxy). */
  readonly gatewayHost?: string;
  /**
   * The context window of `model` in tokens, when the provider knows it better than the price table (Infinity: no
   * limit).
   */
  contextWindow?(model: string): number;
  /**
   * The model a request's usage is counted under (`modelUsage`), given the model asked for and the one the answer
   * names. Without it: the one asked for, as Claude Code keys `modelUsage` (not the snapshot the API answers with).
   */
  usageModel?(asked: string, answered: string): string;
  stream(request: ModelRequest): AsyncIterable<StreamEvent>;
  /**
   * The same events as `stream()`, in batches (a network read's at once), so that the agent loop takes one async step
   * per batch, not per event. Optional: the loop uses `stream()` without it.
   */
  streamBatches?(request: ModelRequest): AsyncIterable<StreamEvent[]>;
  /**
   * Runs a web search on the provider's servers and returns the answer's content blocks (unchecked); only providers
   * that can.
   */
  webSearch?(request: WebSearchRequest): Promise<unknown[]>;
}

/** The thinking a request asks for: `thinking`, else the budget as enabled thinking. */
export function thinkingOf(
  request: Pick<ModelRequest, 'thinking' | 'thinkingBudgetTokens'>,
): ThinkingConfig | undefined {
  if (request.thinking) return request.thinking;
  return request.thinkingBudgetTokens !== undefined
    ? { type: 'enabled', budgetTokens: request.thinkingBudgetTokens }
    : undefined;
}

/** A batched stream as single events (a provider's `stream()` from its `streamBatches()`). */
export async function* eventsOf(batches: AsyncIterable<StreamEvent[]>): AsyncGenerator<StreamEvent> {
  for await (const batch of batches) yield* batch;
}
