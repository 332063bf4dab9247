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
 * - plan mode: a Write says it cannot write there;
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
}

/** What the refusal is about. */
export interface RefusedCall {
  tool: Tool;
  input: Record<string, unknown>;
  refusal: Refusal;
  mode: PermissionMode;
  cwd: string;
  directories?: string[];
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
