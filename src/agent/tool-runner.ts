/**
 * Runs one tool call: permission checks (rules, mode, hooks, the canUseTool callback),
 * the call itself with `tool_progress` heartbeats, and the conversion of any failure into
 * an `is_error` tool result. Progress never arrives after the result.
 */
import type { PermissionResult } from '../messages/control.ts';
import type { ToolProgressMessage, ToolResultBlock, ToolUseBlock } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { checkPermission } from '../tools/permissions.ts';
import type { Tool, ToolResult } from '../tools/types.ts';
import type { AgentContext } from './context.ts';

/** What one call produced, for the history, the wire and the result. */
export interface ToolOutcome {
  block: ToolResultBlock;
  data?: unknown;
  denied?: { reason: string };
  /** The permission answer asked to stop the whole prompt. */
  interrupt?: boolean;
}

export async function runToolCall(ctx: AgentContext, use: ToolUseBlock, signal: AbortSignal): Promise<ToolOutcome> {
  const tool = ctx.tools.find((t) => t.name === use.name);
  if (!tool) return errorOutcome(use, `No such tool available: ${use.name}`);
  if ('__invalid_input' in use.input) return errorOutcome(use, `The tool input was not valid JSON: ${String(use.input.__invalid_input).slice(0, 200)}`);

  const decision = await authorize(ctx, tool, use, signal);
  if (decision.behavior === 'deny') {
    return { ...errorOutcome(use, decision.message), denied: { reason: decision.message }, interrupt: decision.interrupt };
  }
  const input = decision.updatedInput ?? use.input;
  const result = await callWithProgress(ctx, tool, { ...use, input }, signal);
  return {
    block: { type: 'tool_result', tool_use_id: use.id, content: result.content, is_error: result.isError ?? false },
    data: result.data,
  };
}

function errorOutcome(use: ToolUseBlock, message: string): ToolOutcome {
  return { block: { type: 'tool_result', tool_use_id: use.id, content: message, is_error: true } };
}

/** Rules and mode first; hooks may decide or rewrite; `ask` goes to the callback or is denied. */
async function authorize(ctx: AgentContext, tool: Tool, use: ToolUseBlock, signal: AbortSignal): Promise<PermissionResult> {
  let input = use.input;
  const hook = await ctx.hooks?.preToolUse?.({ toolName: tool.name, input, toolUseId: use.id, signal, parentToolUseId: ctx.parentToolUseId });
  if (hook?.updatedInput) input = hook.updatedInput;
  if (hook?.decision === 'deny') return { behavior: 'deny', message: hook.reason ?? `${tool.name} was blocked by a PreToolUse hook` };
  const verdict = checkPermission({ tool, input, mode: ctx.permissions.mode, allow: ctx.permissions.allow, deny: ctx.permissions.deny, cwd: ctx.cwd });
  if (verdict.behavior === 'deny') return { behavior: 'deny', message: verdict.reason };
  if (hook?.decision === 'allow' || verdict.behavior === 'allow') return { behavior: 'allow', updatedInput: input };
  if (!ctx.canUseTool) return { behavior: 'deny', message: verdict.reason };
  try {
    const answer = await ctx.canUseTool(tool.name, input, { signal, toolUseId: use.id, suggestions: [], parentToolUseId: ctx.parentToolUseId });
    if (answer.behavior === 'allow') return { behavior: 'allow', updatedInput: answer.updatedInput ?? input };
    return { behavior: 'deny', message: answer.message || `Permission to use ${tool.name} was denied`, interrupt: answer.interrupt };
  } catch (error) {
    if (signal.aborted) throw error;
    return { behavior: 'deny', message: `Permission check for ${tool.name} failed: ${(error as Error).message}` };
  }
}

async function callWithProgress(ctx: AgentContext, tool: Tool, use: ToolUseBlock, signal: AbortSignal): Promise<ToolResult> {
  const started = Date.now();
  let lastOutput = '';
  let chain = Promise.resolve();
  let finished = false;
  const beat = () => {
    if (finished) return;
    const message: ToolProgressMessage = {
      type: 'tool_progress', tool_use_id: use.id, tool_name: tool.name, parent_tool_use_id: ctx.parentToolUseId,
      elapsed_time_seconds: Math.round((Date.now() - started) / 100) / 10, uuid: newUuid(), session_id: ctx.sessionId,
      ...(lastOutput ? { output: lastOutput } : {}),
    };
    chain = chain.then(() => ctx.emit(message));
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    beat();
    interval = setInterval(beat, ctx.progressIntervalMs);
  }, ctx.progressThresholdMs);
  try {
    return await tool.call(use.input, {
      cwd: ctx.cwd, signal, sessionId: ctx.sessionId, toolUseId: use.id, state: ctx.toolState,
      onOutput: (text) => {
        lastOutput = (lastOutput + text).slice(-2000);
      },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { content: signal.aborted ? `${tool.name} was interrupted` : `${tool.name} failed: ${message}`, isError: true };
  } finally {
    finished = true;
    clearTimeout(first);
    clearInterval(interval);
    await chain;
  }
}
