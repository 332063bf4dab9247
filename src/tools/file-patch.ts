/**
 * The `structuredPatch` of Edit and Write results (as in Claude Code's `tool_use_result`): unified hunks, 3 lines of
 * context.
 */

/** One hunk, in the SDK's `FileEditOutput.structuredPatch` shape. */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** The hunks that turn `before` into `after` (`diff` loads on first use). */
export async function structuredPatchOf(file: string, before: string, after: string): Promise<PatchHunk[]> {
  const { structuredPatch } = await import('diff');
  return structuredPatch(file, file, before, after, '', '', { context: 3 }).hunks.map(
    ({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }),
  );
}

/**
 * Write's `tool_use_result`: a new file has no patch; an overwritten one (or `type: 'update'` with the before-text
 * unknown) its hunks.
 */
export async function writeResultOf(
  file: string,
  before: string | null,
  content: string,
  type: 'create' | 'update' = before === null ? 'create' : 'update',
) {
  const structuredPatch = before === null ? [] : await structuredPatchOf(file, before, content);
  return { type, filePath: file, content, structuredPatch, originalFile: before, userModified: false };
}

/** Edit's `tool_use_result`: the replacement and the hunks from `before` to `after`. */
export async function editResultOf(
  file: string,
  oldString: string,
  newString: string,
  before: string,
  after: string,
  replaceAll = false,
) {
  return {
    filePath: file,
    oldString,
    newString,
    originalFile: before,
    structuredPatch: await structuredPatchOf(file, before, after),
    userModified: false,
    replaceAll,
  };
}

/**
 * The text before an edit that replaced `oldString` with `newString` once, from the text after it; undefined when that
 * is ambiguous.
 */
export function reverseEdit(after: string, oldString: string, newString: string): string | undefined {
  if (!newString) return undefined;
  const at = after.indexOf(newString);
  if (at === -1 || after.indexOf(newString, at + 1) !== -1) return undefined;
  return after.slice(0, at) + oldString + after.slice(at + newString.length);
}
