/**
 * How the session answers a wrapped agent's (`harness`) permission questions.
 */
import type { PermissionResult } from '../messages/control.ts';
import type { AgentContext } from '../agent/context.ts';
import type { PermissionPromptDetails } from '../harness/types.ts';
import { checkPermission, isWholeToolRule, type PermissionVerdict } from '../tools/permissions.ts';
import { permissionPromptInfo } from '../tools/permission-prompt.ts';

/**
 * A wrapped agent's permission question, decided as agentpipe decides its own calls: the
 * session's rules and mode first (a deny rule wins over the wrapped agent's own settings), on
 * the parsed command and resolved paths for the tools agentpipe knows; what is left open goes to
 * the permission prompt (`canUseTool`, `can_use_tool`), and is denied without one.
 */
export async function harnessPermission(
  ctx: AgentContext,
  toolName: string,
  input: Record<string, unknown>,
  toolUseId: string,
  signal: AbortSignal,
  shown?: PermissionPromptDetails,
): Promise<PermissionResult> {
  const p = ctx.permissions;
  const tool = ctx.tools.find((t) => t.name === toolName);
  let verdict: PermissionVerdict;
  if (tool)
    verdict = await checkPermission({
      tool,
      input,
      mode: p.mode,
      allow: p.allow,
      deny: p.deny,
      cwd: ctx.cwd,
      directories: p.directories,
    });
  else if (p.deny.some((rule) => isWholeToolRule(rule, toolName)))
    verdict = { behavior: 'deny', reason: `${toolName} is denied by a rule`, by: 'rule' };
  else if (p.mode === 'bypassPermissions' || p.allow.some((rule) => isWholeToolRule(rule, toolName)))
    verdict = { behavior: 'allow', sandbox: 'workspace' };
  else verdict = { behavior: 'ask', reason: `${toolName} needs permission` };
  if (verdict.behavior === 'allow') return { behavior: 'allow' };
  if (verdict.behavior === 'deny') return { behavior: 'deny', message: verdict.reason };
  const ask = p.mode === 'dontAsk' ? undefined : ctx.canUseTool;
  if (!ask)
    return {
      behavior: 'deny',
      message:
        `${toolName} needs permission and there is no permission prompt ` +
        `(canUseTool, --permission-prompt-tool stdio)`,
    };
  // The wrapped agent's own prompt details (Claude Code sends them), else agentpipe's for the call.
  const { suggestions, ...details } = shown ?? (await permissionPromptInfo(toolName, input, ctx.cwd, p.directories));
  return ask(toolName, input, {
    signal,
    toolUseId,
    suggestions: suggestions ?? [],
    parentToolUseId: null,
    ...details,
  });
}
