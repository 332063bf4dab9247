/**
 * When a tool's own check of a call (`Tool.validate`: Edit's "String to replace not found", "File does not exist" …)
 * may run before the hooks and the permission checks, as Claude Code 2.1.332 runs it.
 *
 * Such an error tells the model something of the file: whether it exists, whether a string occurs in it. So the check
 * runs first only when a Read of the same resolved path would run without asking anyone: inside the working folders
 * (after `~`, `..` and links), no Read deny rule covering it, not a file protected as configuration that makes
 * programs run. Allow rules do not count (the default mode's judgment, whatever the session's mode). Otherwise the
 * permission checks come first and the tool checks the call when it runs.
 */
import type { PermissionMode } from '../messages/types.ts';
import { checkPermission, targetPath, type PermissionRule } from './permissions.ts';
import { expandPath, realPath } from './paths.ts';
import { protectedReason } from './protected-paths.ts';
import { readTool } from './builtin/read.ts';
import type { Tool } from './types.ts';

/** What the judgment depends on: the session's deny rules and working folders. */
export interface ValidateFirstScope {
  cwd: string;
  deny: PermissionRule[];
  /** Extra working folders (`--add-dir`). */
  directories?: string[];
}

/** The mode a Read is judged in: the one without any allowance beyond the working folders. */
const JUDGED_IN: PermissionMode = 'default';

/** True when a Read of `target` would run without asking, in any mode (see the module's comment). */
export async function readableWithoutAsking(target: string, scope: ValidateFirstScope): Promise<boolean> {
  const lexical = expandPath(scope.cwd, target);
  if (protectedReason(realPath(lexical)) !== undefined || protectedReason(lexical) !== undefined) return false;
  const verdict = await checkPermission({
    tool: readTool,
    input: { file_path: target },
    mode: JUDGED_IN,
    allow: [],
    deny: scope.deny,
    cwd: scope.cwd,
    directories: scope.directories,
  });
  return verdict.behavior === 'allow';
}

/**
 * The tool's own refusal of the call, when it has a check and may run it before the permission checks; undefined
 * when the call is fine or the check must wait for them. A check that throws leaves the call to the permission checks
 * and the tool.
 */
export async function refusalBeforePermission(
  tool: Tool,
  input: Record<string, unknown>,
  scope: ValidateFirstScope,
): Promise<string | undefined> {
  const target = targetPath(input, tool.name);
  if (!tool.validate || target === undefined) return undefined;
  try {
    return (await readableWithoutAsking(target, scope)) ? await tool.validate(input, { cwd: scope.cwd }) : undefined;
  } catch {
    return undefined;
  }
}
