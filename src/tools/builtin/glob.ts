/** Glob: files matching a pattern, newest first. */
import { objectSchema, optionalString, requireString, resolvePath } from '../input.ts';
import type { Tool, ToolResult } from '../types.ts';
import { findFiles } from './walk.ts';

const MAX_RESULTS = 100;

export const globTool: Tool = {
  name: 'Glob',
  description:
    'Finds files by glob pattern (e.g. "**/*.ts"), newest first. Skips .git and node_modules unless the ' +
    'pattern names them.',
  inputSchema: objectSchema(
    {
      pattern: { type: 'string', description: 'Glob pattern' },
      path: { type: 'string', description: 'Folder to search in (default: the working folder)' },
    },
    ['pattern'],
  ),
  isReadOnly: () => true,
  async call(input, context): Promise<ToolResult> {
    const pattern = requireString(input, 'pattern');
    const root = resolvePath(context.cwd, optionalString(input, 'path') ?? '.');
    const started = Date.now();
    // Files a Read deny rule protects are left out, as Grep leaves out their lines.
    const { files, truncated } = await findFiles(root, pattern, context.signal, MAX_RESULTS, context.readDenied);
    const body = files.length ? files.join('\n') : 'No files found';
    return {
      content: truncated
        ? `${body}\n(Results are truncated to ${MAX_RESULTS}. Use a more specific path or pattern.)`
        : body,
      data: { filenames: files, numFiles: files.length, truncated, durationMs: Date.now() - started },
    };
  },
};
