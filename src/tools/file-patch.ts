/** The `structuredPatch` of Edit and Write results (as in Claude Code's `tool_use_result`): unified hunks, 3 lines of context. */

/** One hunk, in the SDK's `FileEditOutput.structuredPatch` shape. */
export interface PatchHunk { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }

/** The hunks that turn `before` into `after` (`diff` loads on first use). */
export async function structuredPatchOf(file: string, before: string, after: string): Promise<PatchHunk[]> {
  const { structuredPatch } = await import('diff');
  return structuredPatch(file, file, before, after, '', '', { context: 3 }).hunks
    .map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }));
}
