/**
 * Where the agent fires hooks: the event fields of each, and what their verdicts do. Every
 * helper is a no-op without hooks for the event, so the plain path stays as it was.
 */
import { newUuid } from '../messages/ids.ts';
import type { MessageParam, PromptSubmitOutcome, UserContentBlock } from '../messages/types.ts';
import type { HookEvent, HookVerdict } from '../tools/hooks/types.ts';
import type { AgentContext } from './context.ts';
import { systemReminder } from './recovery.ts';
import { requestChoices } from './request.ts';

const NONE: HookVerdict = { ran: false, additionalContext: [] };

/** The events of a tool call, whose inputs carry the requests' effort (Claude Code's are fired in its query loop). */
const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set<HookEvent>(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

/** Runs the hooks of `event` for this agent (subagent fields included). */
export function fireHook(
  ctx: AgentContext,
  event: HookEvent,
  fields: Record<string, unknown>,
  options: { signal: AbortSignal; matchValue?: string; toolUseId?: string },
): Promise<HookVerdict> {
  if (!ctx.hooks?.has(event)) return Promise.resolve(NONE);
  const effort = TOOL_EVENTS.has(event) ? requestChoices(ctx).effort : undefined;
  return ctx.hooks.run(event, effort ? { effort: { level: effort }, ...fields } : fields, {
    sessionId: ctx.sessionId,
    cwd: ctx.cwd,
    permissionMode: ctx.permissions.mode,
    emit: ctx.emit,
    agent: ctx.agent,
    ...options,
  });
}

/** UserPromptSubmit: may block the prompt, or add context to it. */
export async function userPromptSubmit(
  ctx: AgentContext,
  content: string | UserContentBlock[],
  signal: AbortSignal,
): Promise<{ blocked?: string; content: string | UserContentBlock[] }> {
  const prompt = typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const verdict = await fireHook(ctx, 'UserPromptSubmit', { prompt }, { signal });
  const blocked = verdict.stop ?? verdict.block;
  if (blocked) {
    const notice = blockedPromptNotice(verdict, blocked, prompt);
    await ctx.emit({
      type: 'system',
      subtype: 'informational',
      content: notice.text,
      level: 'warning',
      prevent_continuation: true,
      prompt_submit_outcome: notice.outcome,
      uuid: newUuid(),
      session_id: ctx.sessionId,
    });
    return { blocked: notice.text, content };
  }
  if (verdict.additionalContext.length === 0) return { content };
  const blocks: UserContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
  // On the Claude faces each in a <system-reminder>, as Claude Code 2.1.332 adds a hook's context.
  for (const text of verdict.additionalContext)
    blocks.push({ type: 'text', text: ctx.policy.hookContextApart ? systemReminder(text) : text });
  return { content: blocks };
}

/**
 * Claude Code 2.1.332's words for a blocked prompt; it ends the prompt with them as a notice and as the result text.
 * A hook that failed with `onFailure: "block"` gave no verdict: its notice says so and shows its stderr.
 */
function blockedPromptNotice(
  verdict: HookVerdict,
  blocked: string,
  prompt: string,
): { text: string; outcome: PromptSubmitOutcome } {
  const head = 'UserPromptSubmit operation blocked by hook:';
  const failure = verdict.stop === undefined ? verdict.failure : undefined;
  if (failure)
    return {
      text: `${head}\n${failure.reason}${failure.stderr ? `\n${failure.stderr}` : ''}`,
      outcome: { kind: 'no_verdict', no_verdict_kind: 'hook_failed', prompt_kept: false, reason: failure.reason },
    };
  const who = verdict.stop === undefined && verdict.blockedBy ? `[${verdict.blockedBy}]: ` : '';
  return {
    text: `${head}\n${who}${blocked}\n\n\nOriginal prompt: ${prompt}`,
    outcome: { kind: 'blocked_by_hook', prompt_kept: false, reason: blocked },
  };
}

/** How many times Stop hooks may send the model back to work in one prompt. */
export const MAX_STOP_HOOK_CONTINUATIONS = 5;

/**
 * Stop (or SubagentStop in a subagent) when the model ended its turn. Returns the reason to
 * continue with (a `decision: "block"`), `stop` for `continue: false`, or nothing to end.
 */
export async function stopHook(
  ctx: AgentContext,
  lastText: string,
  continuations: number,
  signal: AbortSignal,
): Promise<{ continueWith?: string; stop?: string }> {
  const event: HookEvent = ctx.agent ? 'SubagentStop' : 'Stop';
  const fields: Record<string, unknown> = { stop_hook_active: continuations > 0, last_assistant_message: lastText };
  if (ctx.agent)
    Object.assign(fields, { agent_id: ctx.agent.id, agent_type: ctx.agent.type, agent_transcript_path: '' });
  const verdict = await fireHook(ctx, event, fields, { signal, matchValue: ctx.agent?.type });
  if (verdict.failed && !ctx.agent) await stopHookNotice(ctx);
  if (verdict.stop) return { stop: verdict.stop };
  const reason = verdict.block ?? verdict.additionalContext.join('\n');
  if (!reason || continuations >= MAX_STOP_HOOK_CONTINUATIONS) return {};
  return { continueWith: reason };
}

/** Claude Code 2.1.332's REPL notice of a Stop hook that failed or sent the model back, sent on the stream too. */
async function stopHookNotice(ctx: AgentContext): Promise<void> {
  await ctx.emit({
    type: 'system',
    subtype: 'notification',
    key: 'stop-hook-error',
    text: 'stop hook problem · ctrl+o to see',
    priority: 'immediate',
    uuid: newUuid(),
    session_id: ctx.sessionId,
  });
}

/**
 * A Stop hook blocked the ending: the model goes on with the hook's reason. The Claude faces (`hookContextApart`) as
 * Claude Code 2.1.332: "Stop hook feedback:\n<reason>" as a synthetic user message, to the model in a
 * `<system-reminder>`, then the stop-hook notice (a subagent's SubagentStop has none); the others say it plainly.
 */
export async function stopHookContinues(
  ctx: AgentContext,
  reason: string,
  history: MessageParam[],
  emitUser: (content: UserContentBlock[], extra: { isSynthetic: true }) => Promise<void>,
): Promise<void> {
  const apart = ctx.policy.hookContextApart;
  const note = apart ? `Stop hook feedback:\n${reason}` : `Stop hook feedback: ${reason}`;
  history.push({ role: 'user', content: [{ type: 'text', text: apart ? systemReminder(note) : note }] });
  await emitUser([{ type: 'text', text: note }], { isSynthetic: true });
  if (apart && !ctx.agent) await stopHookNotice(ctx);
}
