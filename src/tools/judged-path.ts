/**
 * Where a file tool's call was judged to write or read. The permission check judges a call's path as the kernel
 * resolves it at that moment (links followed); the tool opens the file later, after a PreToolUse hook, a prompt the
 * user may take minutes to answer, or a callback. A folder on the path swapped for a link in between (by a job of the
 * model's running in the background) would take an approved write elsewhere. So the path's real location is taken
 * when the check runs, handed to the tool (`ToolContext.judgedPath`), and the tool refuses to write where its folder no
 * longer leads there (file-write.ts checks it on the opened folder, so the check and the write see the same folder).
 * The tools that read do the same: Read checks the file it opened (regular-file.ts), Glob walks the folder it opened
 * (walk.ts), Grep has ripgrep search the judged real path after checking that the path still leads there (grep.ts).
 */
import { realPath } from './paths.ts';
import { resolvePath } from './input.ts';
import { targetPath } from './permissions.ts';
import type { Tool } from './types.ts';

/** A file tool's target as the permission check saw it: the path the tool will open, and where it led then. */
export interface JudgedTarget {
  /** The path as the tool resolves it from the call's input (relative to the cwd, `~` expanded). */
  readonly file: string;
  /** Its real location when the call was judged (links followed; a tail that does not exist kept as written). */
  readonly real: string;
}

/** Whether a tool's calls have their path judged once: the tools that edit files, Read, Grep and Glob. */
export function judgesTarget(tool: Tool): boolean {
  return tool.editsFiles === true || tool.readsPath === true;
}

/** The file a call of a tool that edits or reads one file names, as the tool resolves it; undefined for others. */
function fileOf(tool: Tool, input: Record<string, unknown>, cwd: string): string | undefined {
  if (!judgesTarget(tool)) return undefined;
  const target = targetPath(input, tool.name);
  return target === undefined ? undefined : resolvePath(cwd, target);
}

/** The target of a call of a tool that edits files, taken now; undefined for other tools or an input without one. */
export function judgeTarget(tool: Tool, input: Record<string, unknown>, cwd: string): JudgedTarget | undefined {
  const file = fileOf(tool, input, cwd);
  return file === undefined ? undefined : { file, real: realPath(file) };
}

/**
 * The real path the approved call must write to: the judged one when the approved input names the same file; when an
 * answer (a hook's or the user's `updatedInput`) names another, that file as it resolves at the answer, which is when
 * it was approved.
 */
export function judgedPathOf(
  judged: JudgedTarget | undefined,
  tool: Tool,
  approved: Record<string, unknown>,
  cwd: string,
): string | undefined {
  const file = fileOf(tool, approved, cwd);
  if (file === undefined) return undefined;
  return judged?.file === file ? judged.real : realPath(file);
}
