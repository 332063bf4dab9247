/** Write: creates or replaces a file (and its folders). */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { requireString, resolvePath } from '../input.ts';
import type { Tool, ToolResult } from '../types.ts';
import { ToolInputError } from '../types.ts';
import { recordCheckpoint } from '../checkpoints.ts';

export const writeTool: Tool = {
  name: 'Write',
  description: 'Writes a file, replacing it if it exists and creating missing folders.',
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'Path of the file, absolute or relative to the working folder' },
      content: { type: 'string', description: 'The full new content' },
    },
    required: ['file_path', 'content'],
    additionalProperties: false,
  },
  editsFiles: true,
  isReadOnly: () => false,
  async call(input, context): Promise<ToolResult> {
    const file = resolvePath(context.cwd, requireString(input, 'file_path'));
    const content = input.content;
    if (typeof content !== 'string') throw new ToolInputError('The required parameter `content` is missing or not a string');
    const before = await readFile(file, 'utf8').catch(() => null);
    recordCheckpoint(context.state, file, before);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content, { signal: context.signal });
    const kind = before === null ? 'create' : 'update';
    return {
      content: before === null ? `File created successfully at: ${file}` : `The file ${file} has been updated.`,
      data: { type: kind, filePath: file, content, originalFile: before },
    };
  },
};
