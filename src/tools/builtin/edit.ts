/** Edit: exact string replacement in a file; fails clearly when the text is missing or not unique. */
import { readFile, writeFile } from 'node:fs/promises';
import { optionalBoolean, requireString, resolvePath } from '../input.ts';
import type { Tool, ToolResult } from '../types.ts';
import { ToolInputError } from '../types.ts';
import { recordCheckpoint } from '../checkpoints.ts';

export const editTool: Tool = {
  name: 'Edit',
  description: 'Replaces old_string with new_string in a file. old_string must match exactly and be unique unless replace_all is true.',
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'Path of the file' },
      old_string: { type: 'string', description: 'The exact text to replace' },
      new_string: { type: 'string', description: 'The replacement text' },
      replace_all: { type: 'boolean', description: 'Replace every occurrence (default false)' },
    },
    required: ['file_path', 'old_string', 'new_string'],
    additionalProperties: false,
  },
  editsFiles: true,
  isReadOnly: () => false,
  async call(input, context): Promise<ToolResult> {
    const file = resolvePath(context.cwd, requireString(input, 'file_path'));
    const oldString = requireString(input, 'old_string');
    const newString = input.new_string;
    if (typeof newString !== 'string') throw new ToolInputError('The required parameter `new_string` is missing or not a string');
    const replaceAll = optionalBoolean(input, 'replace_all') ?? false;
    if (oldString === newString) return { content: 'old_string and new_string are the same; nothing to change', isError: true };
    const before = await readFile(file, 'utf8').catch(() => null);
    if (before === null) return { content: `File does not exist: ${file}`, isError: true };
    const count = before.split(oldString).length - 1;
    if (count === 0) return { content: `old_string was not found in ${file}. It must match exactly, including whitespace.`, isError: true };
    if (count > 1 && !replaceAll) {
      return { content: `old_string occurs ${count} times in ${file}. Give more surrounding context to make it unique, or set replace_all to true.`, isError: true };
    }
    const after = replaceAll ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    recordCheckpoint(context.state, file, before);
    await writeFile(file, after, { signal: context.signal });
    return {
      content: `The file ${file} has been updated (${replaceAll ? count : 1} replacement${replaceAll && count > 1 ? 's' : ''}).`,
      data: { filePath: file, oldString, newString, replaceAll, originalFile: before },
    };
  },
};
