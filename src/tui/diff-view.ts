/**
 * What an Edit or Write did, for the interactive session: the hunks of its result (`tool_use_result.structuredPatch`,
 * as Claude Code gives them) as a unified diff, removed lines red and added ones green; a new file's first lines as
 * added. At most MAX_LINES lines, then how many more.
 */
import { styleText } from 'node:util';
import { z } from 'zod';

const MAX_LINES = 40;

const Hunk = z.object({
  oldStart: z.number(),
  oldLines: z.number(),
  newStart: z.number(),
  newLines: z.number(),
  lines: z.array(z.string()),
});

/** The part of an Edit or Write result a diff is drawn from. */
const FileResult = z.object({
  filePath: z.string().optional(),
  type: z.string().optional(),
  content: z.string().optional(),
  structuredPatch: z.array(Hunk).optional(),
});

/** The diff of a tool result, ready to print (ending in a newline), or '' when it changed no file. */
export function diffOfResult(toolUseResult: unknown, colors: boolean): string {
  const parsed = FileResult.safeParse(toolUseResult);
  if (!parsed.success) return '';
  const { structuredPatch = [], type, content } = parsed.data;
  const lines: string[] = [];
  if (structuredPatch.length > 0) {
    for (const hunk of structuredPatch) {
      lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
      lines.push(...hunk.lines);
    }
  } else if (type === 'create' && content !== undefined) {
    const body = content.endsWith('\n') ? content.slice(0, -1) : content;
    lines.push(...body.split('\n').map((line) => `+${line}`));
  } else return '';
  const shown = lines.slice(0, MAX_LINES);
  const more = lines.length - shown.length;
  const paint = (style: Parameters<typeof styleText>[0], text: string) =>
    colors ? styleText(style, text, { validateStream: false }) : text;
  const out = shown.map((line) => {
    if (line.startsWith('@@')) return paint('cyan', line);
    if (line.startsWith('+')) return paint('green', line);
    if (line.startsWith('-')) return paint('red', line);
    return line;
  });
  if (more > 0) out.push(paint('dim', `… ${more} more line${more === 1 ? '' : 's'}`));
  return `${out.map((line) => `  ${line}`).join('\n')}\n`;
}
