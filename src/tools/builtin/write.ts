/**
 * Write: creates or replaces a file (and its folders). It never writes through a symbolic link
 * at the file's name, nor through a hard link (see file-write.ts).
 */
import path from 'node:path';
import { objectSchema, requireString, requireText, resolvePath } from '../input.ts';
import { toolUseError, type Tool, type ToolContext, type ToolResult } from '../types.ts';
import { recordRead, writeStanding } from '../read-state.ts';
import { writeResultOf } from '../file-patch.ts';
import { recordCheckpoint } from '../checkpoints.ts';
import { fileWritten } from './file-answers.ts';
import { LinkedFileError, readTextNoFollow, writeTextNoFollow } from '../file-write.ts';
import { realPath } from '../paths.ts';
import { makeJudgedFolder } from '../make-folders.ts';

export const writeTool: Tool = {
  name: 'Write',
  description: 'Writes a file, replacing it if it exists and creating missing folders.',
  inputSchema: objectSchema(
    {
      file_path: { type: 'string', description: 'Path of the file, absolute or relative to the working folder' },
      content: { type: 'string', description: 'The full new content' },
    },
    ['file_path', 'content'],
  ),
  editsFiles: true,
  isReadOnly: () => false,
  async call(input, context): Promise<ToolResult> {
    const file = resolvePath(context.cwd, requireString(input, 'file_path'));
    const content = requireText(input, 'content');
    try {
      const before = await readTextNoFollow(file, 'Write', context.judgedPath);
      // An existing file the model never read may be replaced (Claude Code 2.1.332); one changed since it was read not.
      const standing = before === null ? undefined : await writeStanding(context.state, file);
      if (standing?.kind === 'changed') return toolUseError(standing.refusal);
      recordCheckpoint(context.state, file, before);
      // Missing folders are made only where the call was judged to write (file-write.ts checks the folder again).
      if (context.judgedPath !== undefined && realPath(path.dirname(file)) !== path.dirname(context.judgedPath))
        return toolUseError(
          `${file}: Write refused: a folder on its path was replaced by a link since the call was judged`,
        );
      await makeJudgedFolder(
        context.judgedPath === undefined ? realPath(path.dirname(file)) : path.dirname(context.judgedPath),
        'Write',
      );
      await writeTextNoFollow(file, content, 'Write', { signal: context.signal, judged: context.judgedPath });
      return await written(context, file, before, content);
    } catch (error) {
      if (LinkedFileError.isInstance(error)) return toolUseError(error.message);
      throw error;
    }
  },
};

async function written(
  context: ToolContext,
  file: string,
  before: string | null,
  content: string,
): Promise<ToolResult> {
  await recordRead(context.state, file);
  const data = await writeResultOf(file, before, content);
  return { content: fileWritten(file, before === null), data };
}
