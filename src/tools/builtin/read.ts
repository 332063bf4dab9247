/** Read: a text file with line numbers (offset/limit), or an image as an image block. */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { optionalNumber, requireString, resolvePath } from '../input.ts';
import { toolUseError, type Tool, type ToolResult } from '../types.ts';
import { recordRead } from '../read-state.ts';
import { kindOf, NotReadableError, readRegularFile } from '../regular-file.ts';
import type { ImageMediaType } from '../../messages/types.ts';

const DEFAULT_LIMIT = 2000;
const MAX_LINE = 2000;
const MAX_TEXT_BYTES = 10 * 1024 * 1024;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const IMAGE_TYPES: Record<string, ImageMediaType> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

export const readTool: Tool = {
  name: 'Read',
  description:
    'Reads a file. Text comes with line numbers (cat -n style); use offset (1-based line) and limit for large files. Images come back as images.',
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'Path of the file, absolute or relative to the working folder' },
      offset: { type: 'number', description: 'First line to read (1-based)' },
      limit: { type: 'number', description: `Number of lines to read (default ${DEFAULT_LIMIT})` },
    },
    required: ['file_path'],
    additionalProperties: false,
  },
  isReadOnly: () => true,
  async call(input, context): Promise<ToolResult> {
    const file = resolvePath(context.cwd, requireString(input, 'file_path'));
    const offset = optionalNumber(input, 'offset', 1) ?? 1;
    const limit = optionalNumber(input, 'limit', 1) ?? DEFAULT_LIMIT;
    const info = await stat(file).catch(() => undefined);
    if (!info) return toolUseError(`File does not exist: ${file}`);
    if (info.isDirectory()) return toolUseError(`${file} is a directory; list it with Bash (ls) or Glob`);
    if (!info.isFile()) return toolUseError(`${file} is ${kindOf(info)}; only regular files can be read`);
    try {
      const result = await readAs(file, info.size, offset, limit, context.signal);
      if (!result.isError) await recordRead(context.state, file);
      return result;
    } catch (error) {
      if (error instanceof NotReadableError) return toolUseError(error.message);
      throw error;
    }
  },
};

/** Reads the file as an image or as numbered text lines. */
async function readAs(
  file: string,
  size: number,
  offset: number,
  limit: number,
  signal: AbortSignal,
): Promise<ToolResult> {
  const mediaType = IMAGE_TYPES[path.extname(file).toLowerCase()];
  if (mediaType) {
    const data = (await readRegularFile(file, MAX_IMAGE_BYTES, signal)).toString('base64');
    return {
      content: [{ type: 'image', source: { type: 'base64', media_type: mediaType, data } }],
      data: { type: 'image', file: { filePath: file, base64: data, type: mediaType, originalSize: size } },
    };
  }
  if (size > MAX_TEXT_BYTES)
    return toolUseError(
      `File ${file} is ${size} bytes, over the ${MAX_TEXT_BYTES} byte limit; read a part of it with Bash (sed -n, head)`,
    );
  const text = (await readRegularFile(file, MAX_TEXT_BYTES, signal)).toString('utf8');
  if (text.includes('\u0000')) return toolUseError(`${file} looks binary; it was not read`);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const slice = lines.slice(offset - 1, offset - 1 + limit);
  if (slice.length === 0) {
    return {
      content:
        lines.length === 0 ? `${file} is empty` : `${file} has ${lines.length} lines; offset ${offset} is past the end`,
      data: {
        type: 'text',
        file: { filePath: file, content: '', numLines: 0, startLine: offset, totalLines: lines.length },
      },
    };
  }
  const numbered = slice.map((line, i) => {
    const cut = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}… [line truncated]` : line;
    return `${String(offset + i).padStart(6)}\t${cut}`;
  });
  const rest = lines.length - (offset - 1 + slice.length);
  if (rest > 0) numbered.push(`\n[${rest} more lines; read on with offset ${offset + slice.length}]`);
  return {
    content: numbered.join('\n'),
    data: {
      type: 'text',
      file: {
        filePath: file,
        content: slice.join('\n'),
        numLines: slice.length,
        startLine: offset,
        totalLines: lines.length,
      },
    },
  };
}
