/**
 * What Claude Code 2.1.332 asks the Anthropic API for by default, per model: thinking, effort, `context_management`
 * and the `anthropic-beta` list. Measured with the differential suite's fake API (docs/compat.md, "What agentpipe
 * asks the API by default"); one table, first matching row wins. The Claude faces (`-p`, `query()`, `serve`: the
 * `claude-code` outcome policy) on the Anthropic provider send it; the user's own choices win over each part of it.
 */
import { maxOutputTokensOf } from './pricing.ts';
import type { ContextManagement, EffortLevel, ModelRequest, ThinkingConfig } from './types.ts';

/** The betas of Claude Code's default request. */
export const BETAS = {
  claudeCode: 'claude-code-20250219',
  interleavedThinking: 'interleaved-thinking-2025-05-14',
  contextManagement: 'context-management-2025-06-27',
  thinkingTokenCount: 'thinking-token-count-2026-05-13',
  toolSearch: 'advanced-tool-use-2025-11-20',
  effort: 'effort-2025-11-24',
  thinkingDisplay: 'thinking-display-updates-2026-08-18',
} as const;

const B = BETAS;
/** The betas `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` leaves (Claude Code keeps these three). */
const STABLE = new Set<string>([B.claudeCode, B.interleavedThinking, B.effort]);
/** Claude Code's order of the list (Haiku's starts with the thinking betas). */
const ORDER = [B.claudeCode, B.interleavedThinking, B.contextManagement, B.thinkingTokenCount, B.toolSearch];
const HAIKU_ORDER = [B.interleavedThinking, B.contextManagement, B.claudeCode, B.thinkingTokenCount, B.toolSearch];

/** How a model row thinks by default: adaptively, with a budget of `max_tokens - 1`, or not at all. */
type DefaultThinking = 'adaptive' | 'budget' | 'none';

interface ModelRow {
  /** Whether the row is the model's: its family and version (`claude-opus-4-5-20251101`: opus, 4, 5). */
  match: (model: { family: string; major: number; minor: number }) => boolean;
  thinking: DefaultThinking;
  effort?: EffortLevel;
  order: readonly string[];
  /** The request's `max_tokens`. */
  maxTokens: number;
  /** At most the model's own output cap (src/model/pricing.ts: 8,192 for Claude 3.5 Haiku). */
  capped?: true;
}

/**
 * Claude Code 2.1.332's rows. Not copied: the betas of features agentpipe does not have (`per-turn-control`,
 * `mid-conversation-tool-changes`, sent to the 5.5 models, Fable 5.1 and 5.2 and ids Claude Code does not know), and
 * its remapping of claude-opus-4-0/4-1 to claude-opus-5-5.
 */
const ROWS: readonly ModelRow[] = [
  { match: (m) => m.family === 'claude-3', thinking: 'none', order: [B.claudeCode], maxTokens: 32_000, capped: true },
  {
    match: (m) => m.family === 'haiku' && m.major === 5 && m.minor === 5,
    thinking: 'adaptive',
    effort: 'medium',
    order: HAIKU_ORDER,
    maxTokens: 128_000,
  },
  {
    match: (m) => (m.major === 5 && m.minor === 5) || (m.family === 'fable' && m.major === 5 && m.minor === 2),
    thinking: 'adaptive',
    effort: 'medium',
    order: ORDER,
    maxTokens: 128_000,
  },
  { match: (m) => m.family === 'haiku' && m.major === 4, thinking: 'budget', order: HAIKU_ORDER, maxTokens: 32_000 },
  {
    match: (m) => m.family === 'opus' && m.major === 4 && m.minor === 5,
    thinking: 'budget',
    effort: 'high',
    order: ORDER,
    maxTokens: 32_000,
  },
  { match: (m) => m.major === 4 && [0, 1, 5].includes(m.minor), thinking: 'budget', order: ORDER, maxTokens: 32_000 },
  {
    match: (m) => m.family === 'opus' && m.major === 4 && m.minor === 7,
    thinking: 'adaptive',
    effort: 'xhigh',
    order: ORDER,
    maxTokens: 64_000,
  },
  // Opus 4.6 and 4.8, Opus 5, Sonnet 5, Fable 5 and 5.1: Claude Code asks them for 64,000 tokens.
  {
    match: (m) =>
      (m.family === 'opus' && m.major === 4 && m.minor >= 6) ||
      (m.major === 5 && m.minor === 0 && m.family !== 'haiku') ||
      (m.family === 'fable' && m.major === 5),
    thinking: 'adaptive',
    effort: 'high',
    order: ORDER,
    maxTokens: 64_000,
  },
  // claude-sonnet-4-6 and every id Claude Code does not know (Claude's or not).
  { match: () => true, thinking: 'adaptive', effort: 'high', order: ORDER, maxTokens: 32_000 },
];

/** `claude-<family>-<major>[-<minor>]`, then the end, a date, or a Bedrock/Vertex suffix. */
const MODEL_ID = /^claude-(opus|sonnet|haiku|fable)-(\d+)(?:-(\d{1,2}))?(?=$|-\d{8}|-v\d|@|:|\[)/;

/** The row of `model`. */
export function modelRow(model: string): ModelRow {
  const lower = model.toLowerCase();
  const id = lower.slice(lower.lastIndexOf('/') + 1).replace(/^(?:[a-z]{2}\.)?anthropic\./, '');
  const parts = MODEL_ID.exec(id);
  const family = id.startsWith('claude-3') ? 'claude-3' : (parts?.[1] ?? '');
  const version = { family, major: Number(parts?.[2] ?? -1), minor: Number(parts?.[3] ?? 0) };
  return ROWS.find((row) => row.match(version))!;
}

/** What the user chose; each part given wins over the default. */
export interface RequestChoices {
  thinking?: ThinkingConfig;
  /** The user's `max_tokens` (the `maxTokens` option); else the row's, at most the model's output cap. */
  maxTokens?: number;
  /** `--max-thinking-tokens` (0: no thinking). */
  thinkingBudgetTokens?: number;
  effort?: EffortLevel;
  /** `--betas`: sent after the default ones. */
  betas?: string[];
  /** The settings' `alwaysThinkingEnabled` (false: no thinking). */
  alwaysThinkingEnabled?: boolean;
  /** For `MAX_THINKING_TOKENS` and `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS`. */
  env: Record<string, string | undefined>;
}

/** The request's thinking, effort, betas and context management, as Claude Code would ask for them. */
export type RequestDefaults = Pick<
  ModelRequest,
  'thinking' | 'effort' | 'betas' | 'contextManagement' | 'betaFallback'
> &
  Partial<Pick<ModelRequest, 'maxTokens'>>;

const CLEAR_THINKING: ContextManagement = { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] };

const truthy = (value: string | undefined) => value !== undefined && !['', '0', 'false', 'no'].includes(value);

/** The budget the user gave: `--max-thinking-tokens`, else `MAX_THINKING_TOKENS`. */
function userBudget(choices: RequestChoices): number | undefined {
  if (choices.thinkingBudgetTokens !== undefined) return choices.thinkingBudgetTokens;
  const env = choices.env.MAX_THINKING_TOKENS;
  return env !== undefined && /^\d+$/.test(env.trim()) ? Number(env) : undefined;
}

/** The thinking of the request: the user's, else the row's (display `updates` unless the betas are off). */
function thinkingFor(row: ModelRow, choices: RequestChoices, maxTokens: number, stable: boolean): ThinkingConfig {
  if (choices.thinking) return choices.thinking;
  const budget = userBudget(choices);
  if (budget === 0 || choices.alwaysThinkingEnabled === false) return { type: 'disabled' };
  const display = stable ? {} : { display: 'updates' as const };
  if (budget !== undefined) return { type: 'enabled', budgetTokens: budget, ...display };
  if (row.thinking === 'none') return { type: 'disabled' };
  if (row.thinking === 'budget') return { type: 'enabled', budgetTokens: maxTokens - 1, ...display };
  return { type: 'adaptive', ...display };
}

/**
 * Claude Code's default request for `model` with the user's `choices` over it: its `max_tokens` (a budget row thinks
 * with `maxTokens - 1`), thinking, effort, betas. A model that does not think by default (Claude 3) gets no thinking
 * member.
 */
export function claudeCodeRequest(model: string, choices: RequestChoices): RequestDefaults {
  const row = modelRow(model);
  const maxTokens =
    choices.maxTokens ?? (row.capped ? Math.min(row.maxTokens, maxOutputTokensOf(model)) : row.maxTokens);
  const stable = truthy(choices.env.CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS);
  const thinking = thinkingFor(row, choices, maxTokens, stable);
  const thinks = thinking.type !== 'disabled';
  const effort = choices.effort ?? row.effort;
  const betas = [...row.order];
  if (effort) betas.push(B.effort);
  if (thinks && thinking.display === 'updates') betas.push(B.thinkingDisplay);
  const sent = stable ? betas.filter((beta) => STABLE.has(beta)) : betas;
  for (const beta of choices.betas ?? []) if (!sent.includes(beta)) sent.push(beta);
  return {
    maxTokens,
    ...(row.thinking !== 'none' || choices.thinking || thinks ? { thinking } : {}),
    ...(effort ? { effort } : {}),
    betas: sent,
    ...(thinks && !stable ? { contextManagement: CLEAR_THINKING } : {}),
    betaFallback: true,
  };
}
