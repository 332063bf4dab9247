/**
 * Read: a text file with line numbers (offset/limit), a Jupyter notebook as its cells, or an image
 * as an image block. Lines are numbered as Claude Code 2.1 numbers them (`1\tline`, no padding, a
 * final newline is one more, empty, line) and its notices are its words.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { objectSchema, optionalNumber, requireString, resolvePath } from '../input.ts';
import { toolUseError, type Tool, type ToolResult } from '../types.ts';
import { recordRead } from '../read-state.ts';
import { kindOf, NotReadableError, readRegularFile } from '../regular-file.ts';
import { fileDoesNotExist } from './file-answers.ts';
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
    'Reads a file. Text comes with line numbers (cat -n style); use offset (1-based line) and limit for large ' +
    'files. Images come back as images.',
  inputSchema: objectSchema(
    {
      file_path: { type: 'string', description: 'Path of the file, absolute or relative to the working folder' },
      offset: { type: 'number', description: 'First line to read (1-based)' },
      limit: { type: 'number', description: `Number of lines to read (default ${DEFAULT_LIMIT})` },
    },
    ['file_path'],
  ),
  isReadOnly: () => true,
  readsPath: true,
  async call(input, context): Promise<ToolResult> {
    const given = requireString(input, 'file_path');
    const file = resolvePath(context.cwd, given);
    const offset = optionalNumber(input, 'offset', 1) ?? 1;
    const chosen = optionalNumber(input, 'limit', 1);
    // Missing: the read below reports it.
    const info = await stat(file).catch(() => undefined);
    // Claude Code says it as the call's error, not as a refused call (no <tool_use_error> tags).
    if (!info) return { content: fileDoesNotExist(context.cwd), isError: true };
    // Claude Code 2.1.332 answers with the system's error, as the call's error.
    if (info.isDirectory())
      return { content: `EISDIR: illegal operation on a directory, read '${file}'`, isError: true };
    if (!info.isFile()) return toolUseError(`${file} is ${kindOf(info)}; only regular files can be read`);
    try {
      const result = await readAs(
        { file, given, judged: context.judgedPath },
        info.size,
        offset,
        chosen,
        context.signal,
      );
      if (!result.isError) await recordRead(context.state, file);
      return result;
    } catch (error) {
      if (NotReadableError.isInstance(error)) return toolUseError(error.message);
      throw error;
    }
  },
};

/** Reads the file as an image or as numbered text lines. */
async function readAs(
  /**
   * The file (absolute), its path as the model gave it (the result's `filePath`, as Claude Code's), and where the
   * check judged it to be (read there or not at all).
   */
  { file, given, judged }: { file: string; given: string; judged: string | undefined },
  size: number,
  offset: number,
  /** The model's limit; without one, DEFAULT_LIMIT lines and a note when there are more. */
  chosen: number | undefined,
  signal: AbortSignal,
): Promise<ToolResult> {
  const mediaType = IMAGE_TYPES[path.extname(file).toLowerCase()];
  if (mediaType) {
    const data = (await readRegularFile(file, MAX_IMAGE_BYTES, signal, judged)).toString('base64');
    return {
      content: [{ type: 'image', source: { type: 'base64', media_type: mediaType, data } }],
      data: { type: 'image', file: { filePath: given, base64: data, type: mediaType, originalSize: size } },
    };
  }
  if (size > MAX_TEXT_BYTES)
    return toolUseError(
      `File ${file} is ${size} bytes, over the ${MAX_TEXT_BYTES} byte limit; ` +
        `read a part of it with Bash (sed -n, head)`,
    );
  const text = (await readRegularFile(file, MAX_TEXT_BYTES, signal, judged)).toString('utf8');
  if (text.includes('\u0000')) return toolUseError(`${file} looks binary; it was not read`);
  if (path.extname(file).toLowerCase() === '.ipynb') return notebookResult(text, given);
  return textResult(text, given, offset, chosen);
}

/** A notebook's cells, as Claude Code gives them. */
async function notebookResult(text: string, given: string): Promise<ToolResult> {
  // Loaded for a notebook only: its schema (zod) would otherwise cost every start-up ~10 ms.
  const notebook = await import('./notebook-read.ts');
  try {
    const cells = notebook.notebookCells(text);
    return { content: notebook.notebookContent(cells), data: { type: 'notebook', file: { filePath: given, cells } } };
  } catch (error) {
    if (error instanceof notebook.NotebookReadError) return { content: error.message, isError: true };
    throw error;
  }
}

/** The lines from `offset` (1-based), numbered; `chosen` the model's limit (without one, DEFAULT_LIMIT and a note). */
function textResult(text: string, given: string, offset: number, chosen: number | undefined): ToolResult {
  // Claude Code reads CRLF files as LF (the numbered text and the file result alike).
  const lines = text === '' ? [] : text.replaceAll('\r\n', '\n').split('\n');
  const limited = chosen !== undefined;
  const slice = lines.slice(offset - 1, offset - 1 + (chosen ?? DEFAULT_LIMIT));
  if (slice.length === 0) {
    return {
      content:
        lines.length === 0
          ? '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>'
          : `<system-reminder>Warning: the file exists but is shorter than the provided offset (${offset}). The ` +
            `file has ${lines.length} lines.</system-reminder>`,
      data: {
        type: 'text',
        // An empty file is one empty line to Claude Code.
        file: {
          filePath: given,
          content: '',
          numLines: lines.length === 0 ? 1 : 0,
          startLine: offset,
          totalLines: Math.max(lines.length, 1),
        },
      },
    };
  }
  const numbered = slice.map((line, i) => {
    const cut = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}… [line truncated]` : line;
    return `${offset + i}\t${cut}`;
  });
  const rest = lines.length - (offset - 1 + slice.length);
  // A limit the model chose needs no note (Claude Code gives none); the default one is said.
  if (rest > 0 && !limited) numbered.push(`\n[${rest} more lines; read on with offset ${offset + slice.length}]`);
  return {
    content: numbered.join('\n'),
    data: {
      type: 'text',
      file: {
        filePath: given,
        content: slice.join('\n'),
        numLines: slice.length,
        startLine: offset,
        totalLines: lines.length,
      },
    },
  };
}
