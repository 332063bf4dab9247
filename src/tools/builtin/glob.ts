/** Glob: files matching a pattern, oldest first, as Claude Code 2.1.332 lists them (paths relative to the cwd). */
import { objectSchema, optionalString, requireString, resolvePath } from '../input.ts';
import { toolUseError, type Tool, type ToolResult } from '../types.ts';
import { NotReadableError } from '../regular-file.ts';
import { findFiles, relativeToCwd } from './walk.ts';

const MAX_RESULTS = 100;

export const globTool: Tool = {
  name: 'Glob',
  description:
    'Finds files by glob pattern (e.g. "**/*.ts"), by modification time. Skips .git and node_modules unless the ' +
    'pattern names them.',
  inputSchema: objectSchema(
    {
      pattern: { type: 'string', description: 'Glob pattern' },
      path: { type: 'string', description: 'Folder to search in (default: the working folder)' },
    },
    ['pattern'],
  ),
  isReadOnly: () => true,
  readsPath: true,
  async call(input, context): Promise<ToolResult> {
    const pattern = requireString(input, 'pattern');
    const root = resolvePath(context.cwd, optionalString(input, 'path') ?? '.');
    const started = Date.now();
    // Files a Read deny rule protects are left out, as Grep leaves out their lines.
    const search = { signal: context.signal, max: MAX_RESULTS, denied: context.readDenied, judged: context.judgedPath };
    let found;
    try {
      found = await findFiles(root, pattern, search);
    } catch (error) {
      // The folder no longer leads where the call was judged to search.
      if (NotReadableError.isInstance(error)) return toolUseError(error.message);
      throw error;
    }
    const files = found.files.map((file) => relativeToCwd(context.cwd, file));
    const body = files.length ? files.join('\n') : 'No files found';
    return {
      content: found.truncated ? `${body}\n${truncationNote(files.length, found.total, found.complete)}` : body,
      data: {
        filenames: files,
        numFiles: files.length,
        truncated: found.truncated,
        durationMs: Date.now() - started,
        totalMatches: found.total,
        countIsComplete: found.complete,
      },
    };
  },
};

/** Claude Code's note under a list cut at MAX_RESULTS. */
const truncationNote = (shown: number, total: number, complete: boolean) =>
  complete
    ? `(Showing ${shown} of ${total} matching files; ${total - shown} more are not listed. Narrow the pattern or ` +
      'path to see the rest.)'
    : `(Showing the first ${shown} files; there are more than ${total} matches. Narrow the pattern or path to see ` +
      'the rest.)';
