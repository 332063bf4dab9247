/**
 * A call refused without asking anyone, in Claude Code 2.1.332's words (the Claude faces:
 * `OutcomePolicy.claudeDenials`), where the suite measured them (docs/compat.md): the text the model
 * and the client read, what `system/permission_denied` gives as its reason, and the call's
 * `tool_result_meta`. The permission check decided; this only says it as Claude Code says it. A
 * refusal not listed here keeps agentpipe's own text, which says what to change to allow it.
 *
 * - no way to ask (no `canUseTool`, default or acceptEdits): a Bash line writing a path inside the
 *   working folders names its program and path; a Write, a Read outside the folders and an MCP
 *   tool say Claude "requested permissions"; the Read gives why (`workingDir`); an edit of configuration
 *   that can make programs run (tools/protected-paths.ts) is "a sensitive file" (`safetyCheck`);
 * - dontAsk: Claude Code's don't-ask-mode text for every refusal;
 * - plan mode: a Write says it cannot write there; a Bash line that is not read-only, behind a gateway (Claude Code
 *   judges it with its server-side auto-mode check, which a gateway does not pass through), says the check is
 *   unavailable, with a notice the session gives once (`system/informational`, `auto_mode_no_server_check`);
 * - a Bash deny rule: the command that was refused (`subcommandResults`).
 */
import path from 'node:path';
import type { PermissionDeniedMessage, PermissionMode, ToolResultMeta } from '../messages/types.ts';
import { isInside } from '../process/paths.ts';
import { expandPath, realPath } from '../tools/paths.ts';
import { protectedReason } from '../tools/protected-paths.ts';
import type { Tool } from '../tools/types.ts';

/** Why the call was refused without asking (tool-runner's `auto`). */
export type Refusal = 'rule' | 'mode' | 'no_permission_prompt';

/** What a refusal says. */
export interface ClaudeDenial {
  message: string;
  /** `system/permission_denied`'s reason fields; absent ones are left out of the message. */
  reasonType?: PermissionDeniedMessage['decision_reason_type'];
  reason?: string;
  /** The call's `tool_result_meta` entry (without its id), when it differs from the check's. */
  how?: Omit<ToolResultMeta, 'id'>;
  /** `system/permission_denied`'s `decision_reason_code`. */
  code?: string;
  /** The session's notice before its first such refusal (`system/informational`, `tag`). */
  notice?: { tag: string; content: string };
}

/** What the refusal is about. */
export interface RefusedCall {
  tool: Tool;
  input: Record<string, unknown>;
  refusal: Refusal;
  mode: PermissionMode;
  cwd: string;
  directories?: string[];
  /** The host the requests go through, when it is not Anthropic's (ModelProvider.gatewayHost). */
  gatewayHost?: string;
}

const DONT_ASK = [
  'IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be ',
  'used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work ',
  'around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test ',
  'actions. You should only try to work around this restriction in reasonable ways that do not attempt ',
  'to bypass the intent behind this denial. If you believe this capability is essential to complete the ',
  "user's request, STOP and explain to the user what you were trying to do and why you need this ",
  'permission. Let the user decide how to proceed.',
].join('');

const filePath = (input: Record<string, unknown>, cwd: string): string | undefined =>
  typeof input.file_path === 'string' ? path.resolve(expandPath(cwd, input.file_path)) : undefined;

const folders = (call: RefusedCall) =>
  [call.cwd, ...(call.directories ?? [])].map((dir) => realPath(expandPath(call.cwd, dir)));

/** Claude Code's words for `call`, or undefined where agentpipe keeps its own. */
export async function claudeDenial(call: RefusedCall): Promise<ClaudeDenial | undefined> {
  const { tool, input, refusal, mode } = call;
  if (refusal === 'mode' && mode === 'dontAsk')
    return {
      message:
        `Permission to use ${tool.name} has been denied because Claude Code is running in don't ask mode. ` + DONT_ASK,
      reasonType: 'mode',
      how: {
        permission_decision: { decision: 'reject', source: 'config', reason_type: 'mode' },
        non_execution_kind: 'permission-rule',
      },
    };
  const file = filePath(input, call.cwd);
  if (refusal === 'mode' && mode === 'plan' && tool.name === 'Write' && file)
    return { message: `Cannot write to ${file} while in plan mode.`, reasonType: 'mode' };
  if (refusal === 'mode' && mode === 'plan' && tool.shell && call.gatewayHost !== undefined)
    return checkUnavailable(tool.name, call.gatewayHost);
  if (refusal === 'rule' && tool.shell && typeof input.command === 'string')
    return {
      message: `Permission to use ${tool.name} with command ${input.command} has been denied.`,
      reasonType: 'subcommandResults',
    };
  if (refusal !== 'no_permission_prompt') return undefined;
  // Every mode asks before an edit of configuration that can make programs run.
  if (tool.editsFiles && file && (protectedReason(realPath(file)) ?? protectedReason(file)) !== undefined) {
    const message = `Claude requested permissions to edit ${file} which is a sensitive file.`;
    return { message, reason: message, reasonType: 'safetyCheck' };
  }
  // The rest measured in the default mode only: acceptEdits' refusals (outside the folders) keep agentpipe's words.
  if (mode !== 'default') return undefined;
  if (tool.shell && typeof input.command === 'string') return unaskedLine(call, input.command);
  const requested = (what: string) => `Claude requested permissions to ${what}, but you haven't granted it yet.`;
  if (tool.name === 'Write' && file) return { message: requested(`write to ${file}`) };
  if (tool.name === 'Read' && file && !folders(call).some((dir) => isInside(realPath(file), dir)))
    return {
      message: requested(`read from ${file}`),
      reason: 'Path is outside allowed working directories',
      reasonType: 'workingDir',
    };
  if (tool.name.startsWith('mcp__')) return { message: requested(`use ${tool.name}`) };
  return undefined;
}

/** A Bash line nobody could be asked about: its written path inside the working folders, named with its program. */
async function unaskedLine(call: RefusedCall, command: string): Promise<ClaudeDenial | undefined> {
  const { blockedPath } = await import('../tools/shell/blocked-path.ts');
  // A line the parser cannot read names no path: agentpipe's own words then.
  const blocked = await blockedPath(command, call.cwd).catch(() => undefined);
  const inside = folders(call);
  if (!blocked?.program || !inside.some((dir) => isInside(realPath(blocked.path), dir))) return undefined;
  return {
    message:
      `${blocked.program} in '${blocked.path}' needs approval. The path is inside the working directories for this ` +
      `session ('${inside.join("', '")}'), and Claude Code asks before a shell command creates, changes or removes ` +
      `files there.`,
  };
}

const CHECK_DOCS = 'https://code.claude.com/docs/en/permission-modes#server-side-classifier-review';

/** Claude Code 2.1.332's refusal of a plan-mode Bash line behind a gateway: its auto-mode check cannot run. */
function checkUnavailable(toolName: string, host: string): ClaudeDenial {
  return {
    message:
      `Auto mode is unavailable: its safety check does not run for this session, so ${toolName} was not run. Other ` +
      `actions that need the check will be denied too, and retrying won't help. Finish what you can without them, ` +
      `then tell the user what is blocked and that they can switch to another permission mode.`,
    reason: 'Classifier unavailable',
    reasonType: 'classifier',
    code: 'auto_mode_no_check_in_session',
    how: {
      permission_decision: { decision: 'reject', source: 'config', reason_type: 'classifier' },
      non_execution_kind: 'automode-unavailable',
    },
    notice: {
      tag: 'auto_mode_no_server_check',
      content:
        `Auto mode can't check actions in this session. Its safety check runs on the server, and your requests go ` +
        `through ${host}, which doesn't pass it through. Nobody can be asked to approve actions in this session, so ` +
        `every action that needs the check is refused. To run these actions, use another permission mode. To use ` +
        `auto mode, ask whoever runs ${host} to pass Claude Code's server-side safety check through: ${CHECK_DOCS}`,
    },
  };
}
