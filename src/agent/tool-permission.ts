/**
 * Whether a tool call may run, and how: PreToolUse hooks, the rules and the mode (checkPermission), the permission
 * prompt (`canUseTool`), and the names Claude Code gives each decision (`tool_result_meta`,
 * `system/permission_denied`).
 */
import type { ShellStart } from '../tools/shell/shell-cwd.ts';
import { errorMessage } from '../process/errors.ts';
import { newUuid } from '../messages/ids.ts';
import type { PermissionResult } from '../messages/control.ts';
import type { PermissionDeniedMessage, ToolResultMeta, ToolUseBlock } from '../messages/types.ts';
import { toolUseError as wrapToolUseError } from '../messages/notices.ts';
import { checkPermission } from '../tools/permissions.ts';
import { toolNameMatches } from '../tools/permission-rules.ts';
import { permissionPromptInfo } from '../tools/permission-prompt.ts';
import type { Tool } from '../tools/types.ts';
import { sandboxOf, type AgentContext } from './context.ts';
import type { CommandProfile, ShellSandbox } from '../sandbox/config.ts';
import type { HookVerdict } from '../tools/hooks/types.ts';
import { fireHook } from './hooks.ts';
import { judgedPathOf, judgesTarget, judgeTarget, type JudgedTarget } from '../tools/judged-path.ts';

/**
 * How a call was denied without asking anyone (`system/permission_denied`); absent for hooks and for the client's or
 * user's answers.
 */
export type AutoDenial = 'rule' | 'mode' | 'no_permission_prompt';
type Decided = Omit<ToolResultMeta, 'id'>;

/**
 * How Claude Code names a decision of the settings: the mode, or a rule (`subcommandResults` for a shell line). A tool
 * that needs no permission (StructuredOutput, the task-list tools) always runs, so its acceptance names no reason.
 */
function byConfig(tool: Tool, decision: 'accept' | 'reject', byRule: boolean): Decided {
  const reason_type = byRule ? (tool.shell ? 'subcommandResults' : 'rule') : 'mode';
  if (decision === 'accept' && tool.needsNoPermission === true && !byRule)
    return { permission_decision: { decision, source: 'config' } };
  if (decision === 'accept') return { permission_decision: { decision, source: 'config', reason_type } };
  return byRule
    ? { permission_decision: { decision, source: 'config', reason_type }, non_execution_kind: 'permission-rule' }
    : { permission_decision: { decision, source: 'config' }, non_execution_kind: 'user-rejected' };
}

/** A call's permission decision, with how it was reached. */
export type Authorized = PermissionResult & {
  stop?: string;
  auto?: AutoDenial;
  sandbox?: CommandProfile;
  how?: Decided;
  /** `system/permission_denied`'s reason fields when they are not `auto` and the message (Claude Code's words). */
  reasons?: Pick<PermissionDeniedMessage, 'decision_reason_type' | 'decision_reason' | 'decision_reason_code'>;
  /** For an allowed call of a tool that edits files: where its file really was when judged (judged-path.ts). */
  judgedPath?: string;
};

/** `decide`, then in bypassPermissions the sandbox's wall for the file tools (tools/sandbox-writes.ts). */
export async function authorize(
  ctx: AgentContext,
  tool: Tool,
  use: ToolUseBlock,
  signal: AbortSignal,
  shell?: ShellStart,
): Promise<Authorized> {
  const seen: { target?: JudgedTarget } = {};
  const decided = await decide(ctx, tool, use, signal, seen, shell);
  const decision =
    decided.behavior === 'allow' && judgesTarget(tool)
      ? { ...decided, judgedPath: judgedPathOf(seen.target, tool, decided.updatedInput ?? use.input, ctx.cwd) }
      : decided;
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
      gatewayHost: ctx.provider.gatewayHost,
    });
    if (said?.notice && !ctx.toolState.checkUnavailableSaid) {
      ctx.toolState.checkUnavailableSaid = true;
      const { tag, content } = said.notice;
      await ctx.emit({
        type: 'system',
        subtype: 'informational',
        content,
        level: 'warning',
        isMeta: false,
        tag,
        timestamp: new Date().toISOString(),
        uuid: newUuid(),
        session_id: ctx.sessionId,
      });
    }
    if (said)
      return {
        ...decision,
        message: said.message,
        how: said.how ?? decision.how,
        reasons: {
          ...(said.reasonType ? { decision_reason_type: said.reasonType } : {}),
          ...(said.reason ? { decision_reason: said.reason } : {}),
          ...(said.code ? { decision_reason_code: said.code } : {}),
        },
      };
  }
  if (decision.behavior !== 'allow' || !tool.editsFiles || ctx.permissions.mode !== 'bypassPermissions')
    return decision;
  const { sandboxWriteDenial } = await import('../tools/sandbox-writes.ts');
  const denied = await sandboxWriteDenial(sandboxOf(ctx), tool.name, decision.updatedInput ?? use.input);
  return denied ? { behavior: 'deny', message: denied, auto: 'mode', how: byConfig(tool, 'reject', false) } : decision;
}

/**
 * PreToolUse hooks first (deny, rewrite, allow or ask); then the rules and the mode, which a
 * hook's allow cannot override (deny rules, plan mode); `ask` goes to the callback or is denied.
 */
async function decide(
  ctx: AgentContext,
  tool: Tool,
  use: ToolUseBlock,
  signal: AbortSignal,
  seen: { target?: JudgedTarget },
  shell: ShellStart | undefined,
): Promise<Authorized> {
  let input = use.input;
  const hook = await fireHook(
    ctx,
    'PreToolUse',
    { tool_name: tool.name, tool_input: input, tool_use_id: use.id },
    { signal, matchValue: tool.name, toolUseId: use.id },
  );
  if (hook.stop) return { behavior: 'deny', message: `${tool.name} was not run: ${hook.stop}`, stop: hook.stop };
  if (hook.permission === 'deny') return hookDenial(tool, hook);
  if (hook.updatedInput) input = hook.updatedInput;
  // Where the file is now, when the check judges it: an approval after a prompt is an approval of this.
  seen.target = judgeTarget(tool, input, ctx.cwd);
  const verdict = await checkPermission({
    tool,
    input,
    mode: ctx.permissions.mode,
    allow: ctx.permissions.allow,
    deny: ctx.permissions.deny,
    cwd: ctx.cwd,
    ...(shell ? { shellCwd: shell.folder } : {}),
    directories: ctx.permissions.directories,
    // One resolution: the check judges the place recorded above, which is where the tool will write.
    ...(seen.target ? { judged: seen.target.real } : {}),
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
    // A line the check found read-only, or made of acceptEdits' file commands, is allowed by its subcommands, as
    // Claude Code 2.1.332 says (not by the mode).
    const { mode } = ctx.permissions;
    const byLine =
      verdict.bySubcommands === true ||
      (tool.shell === true && verdict.sandbox === 'read-only' && mode !== 'bypassPermissions');
    const byRule = byLine || ctx.permissions.allow.some((rule) => toolNameMatches(rule.tool, tool.name));
    return { behavior: 'allow', updatedInput: input, sandbox: verdict.sandbox, how: byConfig(tool, 'accept', byRule) };
  }
  const why =
    verdict.behavior === 'ask'
      ? verdict.reason
      : `${tool.name} needs approval: ${hook.permissionReason ?? 'a PreToolUse hook asked for it'}`;
  return askPermission(ctx, tool, use, input, why, outside, signal, shell?.folder);
}

/** A PreToolUse hook's deny, in Claude Code 2.1.332's words: an exit-2 hook's command and stderr, else its reason. */
function hookDenial(tool: Tool, hook: HookVerdict): Authorized {
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
/**
 * A call left open (`ask`): the Notification hook, then the permission prompt (`canUseTool`), or a denial without one.
 * `outside` is how the checked call would run unsandboxed, if it would.
 */
async function askPermission(
  ctx: AgentContext,
  tool: Tool,
  use: ToolUseBlock,
  input: Record<string, unknown>,
  why: string,
  outside: 'requested' | 'excluded' | undefined,
  signal: AbortSignal,
  shellCwd: string | undefined,
): Promise<Authorized> {
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
      shellCwd ?? ctx.cwd,
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
