/**
 * Runs one tool call: permission checks (rules, mode, hooks, the canUseTool callback),
 * the call itself with `tool_progress` heartbeats, and the conversion of any failure into
 * an `is_error` tool result. Progress never arrives after the result.
 */
import { errorMessage } from '../process/errors.ts';
import type { PermissionResult } from '../messages/control.ts';
import type {
  PermissionDeniedMessage,
  ToolProgressMessage,
  ToolResultBlock,
  ToolResultMeta,
  ToolUseBlock,
} from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { toolUseError as wrapToolUseError, withoutToolUseErrorTags } from '../messages/notices.ts';
import { checkPermission, readDeniedFor } from '../tools/permissions.ts';
import { toolNameMatches } from '../tools/permission-rules.ts';
import { hasInputProblem, inputValidationFailure } from '../tools/input-validation.ts';
import { refusalBeforePermission } from '../tools/validate-first.ts';
import { isBuiltinTool, isBuiltinToolName } from '../tools/builtin/index.ts';
import { permissionPromptInfo } from '../tools/permission-prompt.ts';
import { toolUseError, type Tool, type ToolContext, type ToolResult } from '../tools/types.ts';
import { sandboxOf, type AgentContext } from './context.ts';
import type { CommandProfile, ShellSandbox } from '../sandbox/config.ts';
import { fireHook } from './hooks.ts';
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
  if (!tool) {
    // As Claude Code 2.1.332 answers a call of a built-in tool that --tools or --disallowedTools took away (a
    // subagent's own tool list is not the session's: its call gets the plain answer).
    const disabled =
      isBuiltinToolName(use.name) && !ctx.agent
        ? `. ${use.name} is disabled for this session, in subagents as well as here.`
        : '';
    const message = `Error: No such tool available: ${use.name}${disabled}`;
    return { ...errorOutcome(use, wrapToolUseError(message)), data: message };
  }
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
  if (early !== undefined) return errorOutcome(use, wrapToolUseError(early));
  ctx.debug?.('tools', `call ${tool.name} (${use.id})${ctx.agent ? ` in ${ctx.agent.type}` : ''}`);
  const decision = await authorize(ctx, tool, use, signal);
  const how = decision.how?.permission_decision;
  span?.decision(decision.behavior, decision.behavior === 'deny' ? decision.message : how?.reason_type, how?.source);
  if (decision.behavior === 'deny') {
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
    return {
      ...errorOutcome(use, decision.message),
      ...(decision.how ? { meta: { id: use.id, ...decision.how } } : {}),
      denied: { reason: decision.message },
      interrupt: decision.interrupt,
      stop: decision.stop,
    };
  }
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
  const profile = decision.behavior === 'allow' ? (decision.sandbox ?? 'workspace') : 'workspace';
  const result = await callWithProgress(ctx, tool, { ...use, input }, signal, profile, run, span?.traceparent);
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

/**
 * PreToolUse hooks first (deny, rewrite, allow or ask); then the rules and the mode, which a
 * hook's allow cannot override (deny rules, plan mode); `ask` goes to the callback or is denied.
 */
/**
 * How a call was denied without asking anyone (`system/permission_denied`); absent for hooks and for the client's or
 * user's answers.
 */
type AutoDenial = 'rule' | 'mode' | 'no_permission_prompt';
type Decided = Omit<ToolResultMeta, 'id'>;

/**
 * How Claude Code names a decision of the settings: the mode, or a rule (`subcommandResults` for a shell line). The
 * StructuredOutput tool (structured-output.ts, not imported here: it loads only with --json-schema) always runs, so its
 * acceptance names no reason.
 */
function byConfig(tool: Tool, decision: 'accept' | 'reject', byRule: boolean): Decided {
  const reason_type = byRule ? (tool.shell ? 'subcommandResults' : 'rule') : 'mode';
  if (decision === 'accept' && tool.name === 'StructuredOutput' && !byRule)
    return { permission_decision: { decision, source: 'config' } };
  if (decision === 'accept') return { permission_decision: { decision, source: 'config', reason_type } };
  return byRule
    ? { permission_decision: { decision, source: 'config', reason_type }, non_execution_kind: 'permission-rule' }
    : { permission_decision: { decision, source: 'config' }, non_execution_kind: 'user-rejected' };
}

type Authorized = PermissionResult & {
  stop?: string;
  auto?: AutoDenial;
  sandbox?: CommandProfile;
  how?: Decided;
  /** `system/permission_denied`'s reason fields when they are not `auto` and the message (Claude Code's words). */
  reasons?: Pick<PermissionDeniedMessage, 'decision_reason_type' | 'decision_reason'>;
};

/** `decide`, then in bypassPermissions the sandbox's wall for the file tools (tools/sandbox-writes.ts). */
async function authorize(ctx: AgentContext, tool: Tool, use: ToolUseBlock, signal: AbortSignal): Promise<Authorized> {
  const decision = await decide(ctx, tool, use, signal);
  if (decision.behavior === 'deny' && decision.auto && ctx.policy.claudeDenials) {
    const { claudeDenial } = await import('./claude-denial.ts');
    const { mode, directories } = ctx.permissions;
    const said = await claudeDenial({
      tool,
      input: use.input,
      refusal: decision.auto,
      mode,
      cwd: ctx.cwd,
      directories,
    });
    if (said)
      return {
        ...decision,
        message: said.message,
        how: said.how ?? decision.how,
        reasons: {
          ...(said.reasonType ? { decision_reason_type: said.reasonType } : {}),
          ...(said.reason ? { decision_reason: said.reason } : {}),
        },
      };
  }
  if (decision.behavior !== 'allow' || !tool.editsFiles || ctx.permissions.mode !== 'bypassPermissions')
    return decision;
  const { sandboxWriteDenial } = await import('../tools/sandbox-writes.ts');
  const denied = await sandboxWriteDenial(sandboxOf(ctx), tool.name, decision.updatedInput ?? use.input);
  return denied ? { behavior: 'deny', message: denied, auto: 'mode', how: byConfig(tool, 'reject', false) } : decision;
}

async function decide(ctx: AgentContext, tool: Tool, use: ToolUseBlock, signal: AbortSignal): Promise<Authorized> {
  let input = use.input;
  const hook = await fireHook(
    ctx,
    'PreToolUse',
    { tool_name: tool.name, tool_input: input, tool_use_id: use.id },
    { signal, matchValue: tool.name, toolUseId: use.id },
  );
  if (hook.stop) return { behavior: 'deny', message: `${tool.name} was not run: ${hook.stop}`, stop: hook.stop };
  if (hook.permission === 'deny') {
    // Claude Code 2.1.332's words: an exit-2 hook's command and stderr as written, else the hook's reason.
    const why =
      hook.blockedBy !== undefined && hook.blockedStderr
        ? `[${hook.blockedBy}]: ${hook.blockedStderr}`
        : (hook.permissionReason ?? 'no reason given');
    return {
      behavior: 'deny',
      message: `PreToolUse:${tool.name} hook error: ${why}`,
      how: {
        permission_decision: { decision: 'reject', source: 'hook', reason_type: 'hook' },
        non_execution_kind: 'permission-rule',
      },
    };
  }
  if (hook.updatedInput) input = hook.updatedInput;
  const verdict = await checkPermission({
    tool,
    input,
    mode: ctx.permissions.mode,
    allow: ctx.permissions.allow,
    deny: ctx.permissions.deny,
    cwd: ctx.cwd,
    directories: ctx.permissions.directories,
    sandbox: tool.shell && typeof input.command === 'string' ? await shellSandboxOf(ctx) : undefined,
  });
  if (verdict.behavior === 'deny') {
    if (verdict.by === 'path_rule')
      return ctx.policy.claudeDenials
        ? {
            behavior: 'deny',
            message: wrapToolUseError('File is in a directory that is denied by your permission settings.'),
            how: { permission_decision: { decision: 'reject', source: 'config', reason_type: 'rule' } },
          }
        : { behavior: 'deny', message: verdict.reason };
    return {
      behavior: 'deny',
      message: verdict.reason,
      auto: verdict.by,
      how: byConfig(tool, 'reject', verdict.by === 'rule'),
    };
  }
  // Approved, it runs outside the sandbox (see checkPermission): a requested escape only by an answer to this call.
  const outside =
    verdict.behavior === 'ask' ? verdict.unsandboxed : verdict.sandbox === 'unsandboxed' ? 'excluded' : undefined;
  // A hook's allow, the callback's or the user's: approved, so the workspace sandbox.
  if (hook.permission === 'allow' && outside !== 'requested')
    return {
      behavior: 'allow',
      updatedInput: input,
      sandbox: outside ? 'unsandboxed' : 'workspace',
      how: { permission_decision: { decision: 'accept', source: 'hook', reason_type: 'hook' } },
    };
  if (verdict.behavior === 'allow' && hook.permission !== 'ask') {
    // A line the check found read-only is allowed by its subcommands, as Claude Code 2.1.332 says (not by the mode).
    const { mode } = ctx.permissions;
    const byLine =
      tool.shell === true && verdict.sandbox === 'read-only' && mode !== 'plan' && mode !== 'bypassPermissions';
    const byRule = byLine || ctx.permissions.allow.some((rule) => toolNameMatches(rule.tool, tool.name));
    return { behavior: 'allow', updatedInput: input, sandbox: verdict.sandbox, how: byConfig(tool, 'accept', byRule) };
  }
  const why =
    verdict.behavior === 'ask'
      ? verdict.reason
      : `${tool.name} needs approval: ${hook.permissionReason ?? 'a PreToolUse hook asked for it'}`;
  await fireHook(
    ctx,
    'Notification',
    { message: `agentpipe needs your permission to use ${tool.name}`, notification_type: 'permission_prompt' },
    { signal, matchValue: 'permission_prompt' },
  );
  if (!ctx.canUseTool)
    return { behavior: 'deny', message: why, auto: 'no_permission_prompt', how: byConfig(tool, 'reject', false) };
  try {
    const { suggestions, ...shown } = await permissionPromptInfo(
      tool.name,
      input,
      ctx.cwd,
      ctx.permissions.directories,
    );
    const answer = await ctx.canUseTool(tool.name, input, {
      signal,
      toolUseId: use.id,
      suggestions,
      parentToolUseId: ctx.parentToolUseId,
      ...shown,
    });
    if (answer.behavior === 'allow') {
      const approved = answer.updatedInput ?? input;
      // Outside only for the very line judged (an answer that rewrites it gets the workspace sandbox).
      const same =
        approved.command === input.command && (outside === 'excluded' || approved.dangerouslyDisableSandbox === true);
      return {
        behavior: 'allow',
        updatedInput: approved,
        sandbox: outside && same ? 'unsandboxed' : 'workspace',
        how: { permission_decision: { decision: 'accept', source: answer.decisionClassification ?? 'user_temporary' } },
      };
    }
    return {
      behavior: 'deny',
      message: answer.message || `Permission to use ${tool.name} was denied`,
      interrupt: answer.interrupt,
      how: answer.interrupt
        ? { non_execution_kind: 'user-rejected' }
        : {
            permission_decision: { decision: 'reject', source: answer.decisionClassification ?? 'user_reject' },
            non_execution_kind: 'permission-rule',
          },
    };
  } catch (error) {
    if (signal.aborted) throw error;
    return { behavior: 'deny', message: `Permission check for ${tool.name} failed: ${errorMessage(error)}` };
  }
}

/** The sandbox's settings for a Bash call's check (the sandbox module loads: Bash is about to use it). */
async function shellSandboxOf(ctx: AgentContext): Promise<ShellSandbox> {
  const { shellSandbox } = await import('../sandbox/sandbox.ts');
  return shellSandbox(sandboxOf(ctx));
}

async function callWithProgress(
  ctx: AgentContext,
  tool: Tool,
  use: ToolUseBlock,
  signal: AbortSignal,
  profile: CommandProfile,
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
    };
    const runsAgent = run !== undefined && 'callInAgent' in tool;
    const call = () =>
      runsAgent ? (tool as AgentTool).callInAgent(use.input, context, { ctx, run }) : tool.call(use.input, context);
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
