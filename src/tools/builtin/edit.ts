/**
 * Edit: exact string replacement in a file; fails clearly when the text is missing or not unique.
 * It never reads or writes through a symbolic link at the file's name, nor writes through a hard
 * link (see file-write.ts).
 */
import { objectSchema, optionalBoolean, requireString, requireText, resolvePath } from '../input.ts';
import { toolUseError, type Tool, type ToolResult } from '../types.ts';
import { recordRead, writeStanding } from '../read-state.ts';
import { editResultOf } from '../file-patch.ts';
import { recordCheckpoint } from '../checkpoints.ts';
import { fileDoesNotExist, fileEdited } from './file-answers.ts';
import { LinkedFileError, readTextNoFollow, writeTextNoFollow } from '../file-write.ts';

export const editTool: Tool = {
  name: 'Edit',
  inputDefaults: { replace_all: false },
  description:
    'Replaces old_string with new_string in a file. old_string must match exactly and be unique unless ' +
    'replace_all is true.',
  inputSchema: objectSchema(
    {
      file_path: { type: 'string', description: 'Path of the file' },
      old_string: { type: 'string', description: 'The exact text to replace' },
      new_string: { type: 'string', description: 'The replacement text' },
      replace_all: { type: 'boolean', description: 'Replace every occurrence (default false)' },
    },
    ['file_path', 'old_string', 'new_string'],
  ),
  editsFiles: true,
  isReadOnly: () => false,
  async call(input, context): Promise<ToolResult> {
    const file = resolvePath(context.cwd, requireString(input, 'file_path'));
    const oldString = requireString(input, 'old_string');
    const newString = requireText(input, 'new_string');
    const replaceAll = optionalBoolean(input, 'replace_all') ?? false;
    if (oldString === newString)
      return toolUseError('No changes to make: old_string and new_string are exactly the same.');
    let before: string | null;
    try {
      before = await readTextNoFollow(file, 'Edit');
    } catch (error) {
      if (LinkedFileError.isInstance(error)) return toolUseError(error.message);
      throw error;
    }
    if (before === null) return toolUseError(fileDoesNotExist(context.cwd));
    const standing = await writeStanding(context.state, file);
    if (standing.kind === 'changed') return toolUseError(standing.refusal);
    const unread = standing.kind === 'unread';
    const count = before.split(oldString).length - 1;
    if (count === 0) return toolUseError(`String to replace not found in file.\nString: ${oldString}`);
    if (count > 1 && !replaceAll) {
      return toolUseError(
        `Found ${count} matches of the string to replace, but replace_all is false. To replace all ` +
          `occurrences, set replace_all to true. To replace only one occurrence, please provide more context to ` +
          `uniquely identify the instance.\nString: ${oldString}`,
      );
    }
    const after = replaceAll ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    recordCheckpoint(context.state, file, before);
    try {
      await writeTextNoFollow(file, after, 'Edit', context.signal);
    } catch (error) {
      if (LinkedFileError.isInstance(error)) return toolUseError(error.message);
      throw error;
    }
    await recordRead(context.state, file, unread);
    const data = await editResultOf(file, oldString, newString, before, after, replaceAll);
    // Claude Code 2.1.332: an Edit of a file the model never read runs; its result says so, and does not tell the
    // model that it now knows the file.
    return {
      content: fileEdited(file, replaceAll, unread),
      data: unread ? { ...data, contentNotInModelContext: true } : data,
    };
  },
};
