/**
 * Compaction: older turns are summarized by the model and replaced by the summary, so a long
 * session fits the model's window. Announced as `system/status` "compacting", then
 * `compact_boundary` (trigger, pre_tokens, post_tokens), then `status: null`. PreCompact hooks
 * run first (they may add instructions, or block). The kept tail starts at a user message that
 * carries no tool results, so tool_use/tool_result pairs are never split.
 */
import { errorMessage } from '../process/errors.ts';
import { currentModel } from './fallback.ts';
import { modelRequest } from './request.ts';
import type { MessageParam } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import type { AgentContext } from './context.ts';
import { textAnswer } from './text-answer.ts';
import { fireHook } from './hooks.ts';
import { mergeConsecutive } from './merged-history.ts';
import type { UsageTracker } from './usage.ts';

export const SUMMARY_INSTRUCTION = [
  'Your task is to create a detailed summary of the conversation so far; it will replace the conversation, so include',
  "everything needed to continue: the user's requests and intent, key decisions, files and code involved (with paths),",
  'errors met and how they were fixed, pending tasks, and the current work and next step. Do not call any tools;',
  'answer with the summary text only.',
].join(' ');
export const SUMMARY_PREFIX =
  'This session is being continued from a previous conversation that was compacted. Summary of the earlier part:\n\n';

/** What a compaction run needs of the prompt. */
export interface CompactRun {
  signal: AbortSignal;
  usage: UsageTracker;
  /** The prompt's fallback model, if it switched (see `currentModel`): the summary uses it too. */
  fallback?: { from: string; to: string };
}

export type CompactResult = { ok: true; preTokens: number; postTokens: number } | { ok: false; error: string };

/** Rough token count of anything serializable (4 characters a token). */
export function estimateTokens(value: unknown): number {
  return Math.ceil((typeof value === 'string' ? value : JSON.stringify(value)).length / 4);
}

/** Index where a kept tail may start (a user message without tool results), or -1. */
export function lastSafeCut(history: MessageParam[]): number {
  return history.findLastIndex(
    (m, i) =>
      i > 0 && m.role === 'user' && (typeof m.content === 'string' || !m.content.some((b) => b.type === 'tool_result')),
  );
}

export async function compactHistory(
  ctx: AgentContext,
  history: MessageParam[],
  run: CompactRun,
  options: { trigger: 'auto' | 'manual'; preTokens: number; keepFrom?: number; instructions?: string },
): Promise<CompactResult> {
  const started = Date.now();
  const keepFrom = options.keepFrom ?? history.length;
  const older = history.slice(0, keepFrom);
  if (older.length === 0) return { ok: false, error: 'Not enough messages to compact' };
  await ctx.emit({
    type: 'system',
    subtype: 'status',
    status: 'compacting',
    uuid: newUuid(),
    session_id: ctx.sessionId,
  });
  try {
    const hook = await fireHook(
      ctx,
      'PreCompact',
      { trigger: options.trigger, custom_instructions: options.instructions ?? null },
      { signal: run.signal, matchValue: options.trigger },
    );
    const blocked = hook.stop ?? hook.block;
    if (blocked) return { ok: false, error: `Compaction blocked by a PreCompact hook: ${blocked}` };
    const instructions = [SUMMARY_INSTRUCTION, options.instructions, ...hook.additionalContext]
      .filter(Boolean)
      .join('\n\n');
    const summary = await summarize(
      ctx,
      [...older, { role: 'user', content: [{ type: 'text', text: instructions }] }],
      run,
    );
    if (!summary.trim()) return { ok: false, error: 'The model returned an empty summary' };
    history.splice(0, keepFrom, { role: 'user', content: [{ type: 'text', text: SUMMARY_PREFIX + summary }] });
    const postTokens = estimateTokens(ctx.system) + estimateTokens(history);
    await ctx.emit({
      type: 'system',
      subtype: 'compact_boundary',
      compact_metadata: {
        trigger: options.trigger,
        pre_tokens: options.preTokens,
        post_tokens: postTokens,
        duration_ms: Date.now() - started,
      },
      uuid: newUuid(),
      session_id: ctx.sessionId,
    });
    return { ok: true, preTokens: options.preTokens, postTokens };
  } catch (error) {
    run.signal.throwIfAborted();
    return { ok: false, error: `Compaction failed: ${errorMessage(error)}` };
  } finally {
    await ctx.emit({ type: 'system', subtype: 'status', status: null, uuid: newUuid(), session_id: ctx.sessionId });
  }
}

/** One model request for the summary; its text is the summary (no assistant messages are emitted). */
function summarize(ctx: AgentContext, messages: MessageParam[], run: CompactRun): Promise<string> {
  return textAnswer(ctx, modelRequest(ctx, mergeConsecutive(messages), run.signal, currentModel(ctx, run)), run.usage);
}

/** The instructions of a `/compact [instructions]` prompt, or undefined for any other prompt. */
export function compactCommandOf(content: string | Array<{ type: string; text?: string }>): string | undefined {
  const text =
    typeof content === 'string'
      ? content
      : content.length > 0 && content.every((b) => b.type === 'text')
        ? content.map((b) => b.text ?? '').join('')
        : '';
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? (match[1] ?? '').trim() : undefined;
}

/** Runs a manual `/compact`: the whole history becomes the summary. */
export async function runCompactCommand(
  ctx: AgentContext,
  history: MessageParam[],
  run: CompactRun,
  instructions: string,
): Promise<{
  subtype: 'success' | 'error_during_execution';
  text: string;
  errors: string[];
  numTurns: number;
  turns: number;
  stopReason: null;
  terminalReason: 'completed' | 'model_error';
}> {
  const preTokens = estimateTokens(ctx.system) + estimateTokens(history);
  const result = await compactHistory(ctx, history, run, {
    trigger: 'manual',
    preTokens,
    instructions: instructions || undefined,
  });
  if (!result.ok)
    return {
      subtype: 'error_during_execution',
      text: '',
      errors: [result.error],
      numTurns: 0,
      turns: 0,
      stopReason: null,
      terminalReason: 'model_error',
    };
  return compactedOutcome(result.preTokens, result.postTokens, 1);
}

/**
 * The outcome of a `/compact` that compacted; `turns` 0 for one whose compaction a lost cluster worker had recorded
 * before its result (the worker that takes the session over gives the result).
 */
export function compactedOutcome(preTokens: number, postTokens: number, turns: number) {
  return {
    subtype: 'success' as const,
    text: `Compacted: ${preTokens} → ${postTokens} tokens`,
    errors: [],
    numTurns: 1,
    turns,
    stopReason: null,
    terminalReason: 'completed' as const,
  };
}
