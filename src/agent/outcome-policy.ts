/**
 * How a session meets the outcomes a client or a model can tell apart: failed model requests, replies that are not
 * an ending, a budget spent mid-turn, the calls the model sees again. Each face of agentpipe keeps the contract of
 * the product it stands in for (`SessionOptions.outcomePolicy`):
 *
 * - `claude-code` (the Claude faces: `-p` and stream-json, `query()`, `serve`, the default): as Claude Code 2.1.332,
 *   measured with the differential suite (docs/compat.md): its retries (retry.ts); a reply cut at `max_tokens`
 *   continued and an empty one nudged (recovery.ts); a `--max-budget-usd` spent by a turn stops it before its tools
 *   run; a call completed with its tool's `inputDefaults` (Edit's `replace_all: false`); the result's text is the
 *   last text block of the final reply; a PostToolUse hook's context or feedback goes to the model in a
 *   `<system-reminder>` beside the tool result, which stays as the tool gave it (a UserPromptSubmit hook's context
 *   in one too); a call refused without asking says so in Claude Code's words (claude-denial.ts); a rejected key
 *   shows only in the failed request's message and result (no `auth_status`).
 * - `agentpipe` (the Codex faces, `exec` and `app-server`, and the ACP agent): agentpipe's own, which those faces'
 *   contracts and tests were written against: 3 retries of 429/5xx/529 and cut connections; a cut or empty reply
 *   ends the turn as it is; the budget is checked before each model request; calls as the model wrote them; the
 *   result's text is every text block of the final reply; a PostToolUse hook's context is added to the tool result;
 *   a refusal says what would allow the call; a rejected key is also reported as `auth_status`.
 */
import { AGENTPIPE_RETRIES, CLAUDE_CODE_RETRIES, type RetryPolicy } from './retry.ts';

/** The names `SessionOptions.outcomePolicy` takes. */
export const OUTCOME_POLICIES = ['claude-code', 'agentpipe'] as const;
export type OutcomePolicyName = (typeof OUTCOME_POLICIES)[number];

/** What a policy decides; the agent loop asks it, never a face. */
export interface OutcomePolicy {
  readonly name: OutcomePolicyName;
  readonly retries: RetryPolicy;
  /** A reply cut at `max_tokens` is continued, an empty one nudged (recovery.ts), instead of ending the turn. */
  readonly recoversReplies: boolean;
  /** A budget spent by a turn stops the prompt before that turn's tools run (else: before the next request). */
  readonly budgetStopsBeforeTools: boolean;
  /** A call is completed with its tool's `inputDefaults` when its block ends (the stream and history carry them). */
  readonly fillsInputDefaults: boolean;
  /** The result's text is the final reply's last text block (else: all its text blocks joined). */
  readonly lastTextIsResult: boolean;
  /**
   * A PostToolUse hook's context goes beside the tool result as a `<system-reminder>` (else: into the result); a
   * UserPromptSubmit hook's context and a Stop hook's feedback are one too (else: plain text).
   */
  readonly hookContextApart: boolean;
  /** A call refused without asking says so in Claude Code's words where they are known (claude-denial.ts). */
  readonly claudeDenials: boolean;
  /**
   * A key the provider rejected for good (401/403 after the retries) is also reported as `auth_status` with the
   * error. Claude Code 2.1.332 sends none (errors/401, errors/403): its synthetic assistant message and result say it.
   */
  readonly reportsRejectedKey: boolean;
}

const POLICIES: Record<OutcomePolicyName, OutcomePolicy> = {
  'claude-code': {
    name: 'claude-code',
    retries: CLAUDE_CODE_RETRIES,
    recoversReplies: true,
    budgetStopsBeforeTools: true,
    fillsInputDefaults: true,
    lastTextIsResult: true,
    hookContextApart: true,
    claudeDenials: true,
    reportsRejectedKey: false,
  },
  agentpipe: {
    name: 'agentpipe',
    retries: AGENTPIPE_RETRIES,
    recoversReplies: false,
    budgetStopsBeforeTools: false,
    fillsInputDefaults: false,
    lastTextIsResult: false,
    hookContextApart: false,
    claudeDenials: false,
    reportsRejectedKey: true,
  },
};

/** The policy of that name (`claude-code` when none is given: the library's and the CLI's contract). */
export const outcomePolicy = (name: OutcomePolicyName = 'claude-code'): OutcomePolicy => POLICIES[name];

/**
 * The policy of a session on `provider`: Claude Code's retries are its retries of Anthropic's API (it asks again
 * after a 401 because it refreshes its key). A session on an OpenAI-compatible provider, which Claude Code cannot
 * talk to, retries as agentpipe does, so a wrong key fails at once instead of after ten backoffs.
 */
export function outcomePolicyFor(name: OutcomePolicyName | undefined, provider: string): OutcomePolicy {
  const policy = outcomePolicy(name);
  return provider === 'openai-compatible' ? { ...policy, retries: AGENTPIPE_RETRIES } : policy;
}

/** True for a name of OUTCOME_POLICIES. */
export const isOutcomePolicyName = (value: unknown): value is OutcomePolicyName =>
  OUTCOME_POLICIES.some((name) => name === value);
