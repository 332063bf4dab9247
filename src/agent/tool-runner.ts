/**
 * Runs one tool call: permission checks (rules, mode, hooks, the canUseTool callback),
 * the call itself with `tool_progress` heartbeats, and the conversion of any failure into
 * an `is_error` tool result. Progress never arrives after the result.
 */
import { shellStart, type ShellStart } from '../tools/shell/shell-cwd.ts';
import { errorMessage } from '../process/errors.ts';
import type { ToolProgressMessage, ToolResultBlock, ToolResultMeta, ToolUseBlock } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import {
  toolUseError as wrapToolUseError,
  USER_REJECTED,
  USER_REJECTED_TOOL,
  withoutToolUseErrorTags,
} from '../messages/notices.ts';
import { readDeniedFor } from '../tools/permissions.ts';
import { hasInputProblem, inputValidationFailure } from '../tools/input-validation.ts';
import { refusalBeforePermission } from '../tools/validate-first.ts';
import { isBuiltinTool, isBuiltinToolName } from '../tools/builtin/index.ts';
import { toolUseError, type Tool, type ToolContext, type ToolResult } from '../tools/types.ts';
import { sandboxOf, type AgentContext } from './context.ts';
import type { CommandProfile } from '../sandbox/config.ts';
import { fireHook } from './hooks.ts';
import { authorize, type Authorized } from './tool-permission.ts';
import type { RunState } from './loop.ts';
import type { ToolSpan } from '../telemetry/types.ts';

/** A tool that runs inside the agent (Task): it gets the calling agent's context and run. */
export interface AgentTool extends Tool {
  callInAgent(
    input: Record<string, unknown>,
    context: ToolContext,
    parent: { ctx: AgentContext; run: RunState },
  ): Promise<ToolResult>;
}

/** True for a tool that runs inside the agent (`AgentTool`: Task). */
function isAgentTool(tool: Tool): tool is AgentTool {
  return 'callInAgent' in tool;
}

/** What one call produced, for the history, the wire and the result. */
export interface ToolOutcome {
  block: ToolResultBlock;
  data?: unknown;
  /** How the call was let run or refused (`tool_result_meta`), where Claude Code says it. */
  meta?: ToolResultMeta;
  denied?: { reason: string };
  /** The permission answer asked to stop the whole prompt. */
  interrupt?: boolean;
  /** A hook answered `continue: false`: end the prompt with this reason. */
  stop?: string;
  /** The prompt's structured output (a successful StructuredOutput call): the run ends with it. */
  structuredOutput?: unknown;
  /** A command's exit code (Bash), for telemetry. */
  exitCode?: number;
  /** What PostToolUse hooks told the model, beside the result (`OutcomePolicy.hookContextApart`). */
  context?: string[];
}

/** The tool a model's call names: by its name, or the name the model is offered (`Agent` for Task). */
export function toolNamed<T extends Tool>(tools: readonly T[], name: string): T | undefined {
  return tools.find((t) => t.name === name || t.modelName === name);
}

export async function runToolCall(
  ctx: AgentContext,
  use: ToolUseBlock,
  signal: AbortSignal,
  run?: RunState,
): Promise<ToolOutcome> {
  const span = ctx.span?.tool({ id: use.id, name: use.name, input: use.input, mcp: use.name.startsWith('mcp__') });
  if (!span) return runCall(ctx, use, signal, run);
  try {
    const outcome = await runCall(ctx, use, signal, run, span);
    span.end({ isError: outcome.block.is_error === true, exitCode: outcome.exitCode, output: outcome.block.content });
    return outcome;
  } catch (error) {
    span.end({ isError: true });
    throw error;
  }
}

async function runCall(
  ctx: AgentContext,
  use: ToolUseBlock,
  signal: AbortSignal,
  run?: RunState,
  span?: ToolSpan,
): Promise<ToolOutcome> {
  const tool = toolNamed(ctx.tools, use.name);
  if (!tool) return noSuchTool(ctx, use);
  const refused = await inputRefusal(ctx, tool, use);
  if (refused) return refused;
  ctx.debug?.('tools', `call ${tool.name} (${use.id})${ctx.agent ? ` in ${ctx.agent.type}` : ''}`);
  // A shell call starts where the last one's `cd` left it: the check judges the line from there, and it runs there.
  const shell = tool.shell ? shellStart(ctx.toolState, ctx.cwd, ctx.permissions.directories) : undefined;
  const decision = await authorize(ctx, tool, use, signal, shell);
  const how = decision.how?.permission_decision;
  span?.decision(decision.behavior, decision.behavior === 'deny' ? decision.message : how?.reason_type, how?.source);
  if (decision.behavior === 'deny') return deniedOutcome(ctx, tool, use, decision);
  const input = decision.updatedInput ?? use.input;
  if (ctx.guard) {
    try {
      const call = { toolUseId: use.id, toolName: tool.name, parentToolUseId: ctx.parentToolUseId };
      await ctx.guard.toolStarting(call, signal);
    } catch (error) {
      const why = errorMessage(error);
      ctx.debug?.('tools', `${tool.name} (${use.id}) not run: ${why}`);
      return errorOutcome(use, wrapToolUseError(`Not run: ${why}`));
    }
  }
  const started = Date.now();
  const allowed = {
    profile: decision.behavior === 'allow' ? (decision.sandbox ?? 'workspace') : 'workspace',
    judgedPath: decision.behavior === 'allow' ? decision.judgedPath : undefined,
    shell,
  } satisfies Allowed;
  const result = await callWithProgress(ctx, tool, { ...use, input }, signal, allowed, run, span?.traceparent);
  const outcome: ToolOutcome = {
    block: {
      type: 'tool_result',
      tool_use_id: use.id,
      content: result.content,
      // Claude Code 2.1.332 marks a failure, and says `false` only for a shell command's success.
      ...(result.isError ? { is_error: true } : tool.shell ? { is_error: false } : {}),
    },
    ...(decision.how ? { meta: { id: use.id, ...decision.how } } : {}),
    data: result.data ?? (result.isError ? errorData(result.content) : undefined),
    ...(result.denied !== undefined ? { denied: { reason: result.denied } } : {}),
    ...(result.structuredOutput !== undefined && !result.isError ? { structuredOutput: result.structuredOutput } : {}),
    ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
  };
  ctx.debug?.('tools', `${tool.name} (${use.id}) ${result.isError ? 'failed' : 'done'} in ${Date.now() - started} ms`);
  await afterToolUse(ctx, tool, use.id, input, result, Date.now() - started, signal, outcome);
  return outcome;
}

/** A call of a tool the agent does not have. */
function noSuchTool(ctx: AgentContext, use: ToolUseBlock): ToolOutcome {
  // As Claude Code 2.1.332 answers a call of a built-in tool that --tools or --disallowedTools took away (a
  // subagent's own tool list is not the session's: its call gets the plain answer).
  const disabled =
    isBuiltinToolName(use.name) && !ctx.agent
      ? `. ${use.name} is disabled for this session, in subagents as well as here.`
      : '';
  const message = `Error: No such tool available: ${use.name}${disabled}`;
  return { ...errorOutcome(use, wrapToolUseError(message)), data: message };
}

/** Why a call's input is refused before the permission checks, or undefined when it may go on to them. */
async function inputRefusal(ctx: AgentContext, tool: Tool, use: ToolUseBlock): Promise<ToolOutcome | undefined> {
  if ('__invalid_input' in use.input)
    return errorOutcome(
      use,
      wrapToolUseError(`The tool input was not valid JSON: ${String(use.input.__invalid_input).slice(0, 200)}`),
    );

  // As Claude Code: a built-in tool's input that does not fit its schema is refused before the permission checks and
  // hooks (custom tools check their own input; an MCP tool's is its server's to check).
  if (isBuiltinTool(tool) && hasInputProblem(tool.inputSchema, use.input)) {
    const failure = await inputValidationFailure(tool.modelName ?? tool.name, tool.inputSchema, use.input);
    if (failure) return { ...errorOutcome(use, wrapToolUseError(failure.text)), data: failure.data };
  }
  // The tool's own check first, as Claude Code, where its error cannot tell what a Read could not (validate-first.ts);
  // not under a tape (ctx.toolCalls), which records and replays what the tool itself answered.
  const scope = { cwd: ctx.cwd, ...ctx.permissions };
  const early = ctx.toolCalls ? undefined : await refusalBeforePermission(tool, use.input, scope);
  return early === undefined ? undefined : errorOutcome(use, wrapToolUseError(early));
}

/** A denied call's outcome; a denial nobody was asked about is announced (`system/permission_denied`). */
async function deniedOutcome(
  ctx: AgentContext,
  tool: Tool,
  use: ToolUseBlock,
  decision: Authorized & { behavior: 'deny' },
): Promise<ToolOutcome> {
  ctx.debug?.('tools', `${tool.name} (${use.id}) denied: ${decision.message}`);
  ctx.toolCalls?.denied?.({ name: tool.name, input: use.input, toolUseId: use.id }, decision.message);
  if (decision.auto) {
    await ctx.emit({
      type: 'system',
      subtype: 'permission_denied',
      tool_name: tool.name,
      tool_use_id: use.id,
      ...(ctx.agent ? { agent_id: ctx.agent.id } : {}),
      ...(decision.reasons ?? { decision_reason_type: decision.auto, decision_reason: decision.message }),
      message: decision.message,
      uuid: newUuid(),
      session_id: ctx.sessionId,
    });
  }
  // As Claude Code: a call the user refused and stopped the prompt with gets its rejection text, not the host's.
  const rejected = decision.interrupt === true && ctx.policy.claudeInterrupts;
  return {
    ...(rejected
      ? { ...errorOutcome(use, USER_REJECTED_TOOL), data: USER_REJECTED }
      : errorOutcome(use, decision.message)),
    ...(decision.how ? { meta: { id: use.id, ...decision.how } } : {}),
    denied: { reason: decision.message },
    interrupt: decision.interrupt,
    stop: decision.stop,
  };
}

/** PostToolUse after a success, PostToolUseFailure after an `is_error` result. */
async function afterToolUse(
  ctx: AgentContext,
  tool: Tool,
  toolUseId: string,
  input: Record<string, unknown>,
  result: ToolResult,
  durationMs: number,
  signal: AbortSignal,
  outcome: ToolOutcome,
): Promise<void> {
  const failed = result.isError === true;
  const text =
    typeof result.content === 'string'
      ? result.content
      : result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const fields = failed
    ? {
        tool_name: tool.name,
        tool_input: input,
        tool_use_id: toolUseId,
        error: text,
        is_interrupt: signal.aborted,
        duration_ms: durationMs,
      }
    : {
        tool_name: tool.name,
        tool_input: input,
        tool_response: result.data ?? text,
        tool_use_id: toolUseId,
        duration_ms: durationMs,
      };
  const verdict = await fireHook(ctx, failed ? 'PostToolUseFailure' : 'PostToolUse', fields, {
    signal,
    matchValue: tool.name,
    toolUseId,
  });
  if (!verdict.ran) return;
  if (verdict.updatedToolOutput !== undefined) {
    const out = verdict.updatedToolOutput;
    outcome.block.content = typeof out === 'string' ? out : JSON.stringify(out);
  }
  const notes = [
    ...(verdict.block ? [`PostToolUse hook feedback: ${verdict.block}`] : []),
    ...verdict.additionalContext,
  ];
  if (notes.length && ctx.policy.hookContextApart) outcome.context = notes;
  else if (notes.length) {
    const blocks =
      typeof outcome.block.content === 'string'
        ? [{ type: 'text' as const, text: outcome.block.content }]
        : outcome.block.content;
    outcome.block.content = [...blocks, ...notes.map((n) => ({ type: 'text' as const, text: n }))];
  }
  if (verdict.stop) outcome.stop = verdict.stop;
}

function errorOutcome(use: ToolUseBlock, message: string): ToolOutcome {
  return {
    block: { type: 'tool_result', tool_use_id: use.id, content: message, is_error: true },
    data: errorData(message),
  };
}

/** A failed call's `tool_use_result`, as Claude Code gives it: `Error: ` and the message without its tags. */
function errorData(content: ToolResult['content']): string {
  const text = typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return `Error: ${withoutToolUseErrorTags(text)}`;
}

/** How an allowed call may run: its sandbox profile, and for a file tool where its file was judged to be. */
interface Allowed {
  profile: CommandProfile;
  judgedPath: string | undefined;
  /** For a shell tool: where its line starts (the folder the check judged it from). */
  shell: ShellStart | undefined;
}

async function callWithProgress(
  ctx: AgentContext,
  tool: Tool,
  use: ToolUseBlock,
  signal: AbortSignal,
  { profile, judgedPath, shell }: Allowed,
  run?: RunState,
  traceparent?: string,
): Promise<ToolResult> {
  const started = Date.now();
  let lastOutput = '';
  let chain = Promise.resolve();
  let finished = false;
  const beat = () => {
    if (finished) return;
    const message: ToolProgressMessage = {
      type: 'tool_progress',
      tool_use_id: use.id,
      tool_name: tool.name,
      parent_tool_use_id: ctx.parentToolUseId,
      elapsed_time_seconds: Math.round((Date.now() - started) / 100) / 10,
      uuid: newUuid(),
      session_id: ctx.sessionId,
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
    const readDenied = readDeniedFor(tool.name, ctx.permissions.deny, ctx.cwd);
    const context: ToolContext = {
      cwd: ctx.cwd,
      signal,
      sessionId: ctx.sessionId,
      toolUseId: use.id,
      state: ctx.toolState,
      sandbox: { config: sandboxOf(ctx), profile },
      ...(traceparent ? { traceparent } : {}),
      onOutput: (text) => {
        lastOutput = (lastOutput + text).slice(-2000);
      },
      ...(readDenied ? { readDenied } : {}),
      ...(judgedPath !== undefined ? { judgedPath } : {}),
      ...(shell ? { shell } : {}),
    };
    const inAgent = run !== undefined && isAgentTool(tool) ? { tool, run } : undefined;
    const runsAgent = inAgent !== undefined;
    const call = () =>
      inAgent ? inAgent.tool.callInAgent(use.input, context, { ctx, run: inAgent.run }) : tool.call(use.input, context);
    return await (ctx.toolCalls ? ctx.toolCalls.run({ tool, input: use.input, context, runsAgent }, call) : call());
  } catch (error) {
    const message = errorMessage(error);
    return signal.aborted
      ? { content: `${tool.name} was interrupted`, isError: true }
      : toolUseError(`${tool.name} failed: ${message}`);
  } finally {
    finished = true;
    clearTimeout(first);
    clearInterval(interval);
    await chain;
  }
}
