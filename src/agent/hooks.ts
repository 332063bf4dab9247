/**
 * Where the agent fires hooks: the event fields of each, and what their verdicts do. Every
 * helper is a no-op without hooks for the event, so the plain path stays as it was.
 */
import { newUuid } from '../messages/ids.ts';
import type { UserContentBlock } from '../messages/types.ts';
import type { HookEvent, HookVerdict } from '../tools/hooks/types.ts';
import type { AgentContext } from './context.ts';
import { systemReminder } from './recovery.ts';

const NONE: HookVerdict = { ran: false, additionalContext: [] };

/** Runs the hooks of `event` for this agent (subagent fields included). */
export function fireHook(
  ctx: AgentContext,
  event: HookEvent,
  fields: Record<string, unknown>,
  options: { signal: AbortSignal; matchValue?: string; toolUseId?: string },
): Promise<HookVerdict> {
  if (!ctx.hooks?.has(event)) return Promise.resolve(NONE);
  return ctx.hooks.run(event, fields, {
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
  const verdict = await fireHook(ctx, 'UserPromptSubmit', { prompt, source: 'sdk' }, { signal });
  const blocked = verdict.stop ?? verdict.block;
  if (blocked) {
    // Claude Code's words; it ends the prompt with them as a notice and as the result text.
    const who = verdict.stop === undefined && verdict.blockedBy ? `[${verdict.blockedBy}]: ` : '';
    const notice = `UserPromptSubmit operation blocked by hook:\n${who}${blocked}\n\n\nOriginal prompt: ${prompt}`;
    await ctx.emit({
      type: 'system',
      subtype: 'informational',
      content: notice,
      level: 'warning',
      prevent_continuation: true,
      prompt_submit_outcome: { kind: 'blocked_by_hook', prompt_kept: false, reason: blocked },
      uuid: newUuid(),
      session_id: ctx.sessionId,
    });
    return { blocked: notice, content };
  }
  if (verdict.additionalContext.length === 0) return { content };
  const blocks: UserContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
  // On the Claude faces each in a <system-reminder>, as Claude Code 2.1.332 adds a hook's context.
  for (const text of verdict.additionalContext)
    blocks.push({ type: 'text', text: ctx.policy.hookContextApart ? systemReminder(text) : text });
  return { content: blocks };
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
  if (verdict.stop) return { stop: verdict.stop };
  const reason = verdict.block ?? verdict.additionalContext.join('\n');
  if (!reason || continuations >= MAX_STOP_HOOK_CONTINUATIONS) return {};
  return { continueWith: reason };
}
