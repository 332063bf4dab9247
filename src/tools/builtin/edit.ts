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

/** One Edit call's input, read. */
interface EditInput {
  file: string;
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

function editInputOf(input: Record<string, unknown>, cwd: string): EditInput {
  return {
    file: resolvePath(cwd, requireString(input, 'file_path')),
    oldString: requireString(input, 'old_string'),
    newString: requireText(input, 'new_string'),
    replaceAll: optionalBoolean(input, 'replace_all') ?? false,
  };
}

/**
 * The file's text, or why the edit cannot be made (Claude Code's words): same strings, no file, a link, a folder
 * that no longer leads where the call was `judged` to write.
 */
async function textToEdit(
  edit: EditInput,
  cwd: string,
  judged?: string,
): Promise<{ text: string } | { problem: string }> {
  if (edit.oldString === edit.newString)
    return { problem: 'No changes to make: old_string and new_string are exactly the same.' };
  let text: string | null;
  try {
    text = await readTextNoFollow(edit.file, 'Edit', judged);
  } catch (error) {
    if (LinkedFileError.isInstance(error)) return { problem: error.message };
    throw error;
  }
  return text === null ? { problem: fileDoesNotExist(cwd) } : { text };
}

/** Why `oldString` cannot be replaced in `text` (not there, or not unique without replace_all), if it cannot. */
function matchProblem(text: string, { oldString, replaceAll }: EditInput): string | undefined {
  const count = text.split(oldString).length - 1;
  if (count === 0) return `String to replace not found in file.\nString: ${oldString}`;
  if (count > 1 && !replaceAll)
    return (
      `Found ${count} matches of the string to replace, but replace_all is false. To replace all ` +
      `occurrences, set replace_all to true. To replace only one occurrence, please provide more context to ` +
      `uniquely identify the instance.\nString: ${oldString}`
    );
  return undefined;
}

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
  async validate(input, { cwd }) {
    const edit = editInputOf(input, cwd);
    const found = await textToEdit(edit, cwd);
    return 'problem' in found ? found.problem : matchProblem(found.text, edit);
  },
  async call(input, context): Promise<ToolResult> {
    const edit = editInputOf(input, context.cwd);
    const { file, oldString, newString, replaceAll } = edit;
    const found = await textToEdit(edit, context.cwd, context.judgedPath);
    if ('problem' in found) return toolUseError(found.problem);
    const before = found.text;
    const standing = await writeStanding(context.state, file);
    if (standing.kind === 'changed') return toolUseError(standing.refusal);
    const unread = standing.kind === 'unread';
    const problem = matchProblem(before, edit);
    if (problem) return toolUseError(problem);
    const after = replaceAll ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    recordCheckpoint(context.state, file, before);
    try {
      await writeTextNoFollow(file, after, 'Edit', { signal: context.signal, judged: context.judgedPath });
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
