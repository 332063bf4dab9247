/** Grep: searches file contents with a regular expression. */
import { readFile, stat } from 'node:fs/promises';
import { optionalBoolean, optionalNumber, optionalString, requireString, resolvePath } from '../input.ts';
import type { Tool, ToolResult } from '../types.ts';
import { ToolInputError } from '../types.ts';
import { findFiles } from './walk.ts';

const MAX_FILES = 5000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export const grepTool: Tool = {
  name: 'Grep',
  description: 'Searches file contents with a JavaScript regular expression. output_mode: files_with_matches (default), content (matching lines with numbers) or count.',
  inputSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Regular expression' },
      path: { type: 'string', description: 'File or folder to search (default: the working folder)' },
      glob: { type: 'string', description: 'Only files matching this glob (e.g. "*.ts")' },
      output_mode: { type: 'string', enum: ['files_with_matches', 'content', 'count'] },
      '-i': { type: 'boolean', description: 'Case insensitive' },
      head_limit: { type: 'number', description: 'Return at most this many lines/entries' },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  isReadOnly: () => true,
  async call(input, context): Promise<ToolResult> {
    const source = requireString(input, 'pattern');
    const mode = optionalString(input, 'output_mode') ?? 'files_with_matches';
    if (!['files_with_matches', 'content', 'count'].includes(mode)) throw new ToolInputError('output_mode must be files_with_matches, content or count');
    let regex: RegExp;
    try {
      regex = new RegExp(source, optionalBoolean(input, '-i') ? 'i' : '');
    } catch (error) {
      throw new ToolInputError(`Invalid regular expression: ${(error as Error).message}`);
    }
    const limit = optionalNumber(input, 'head_limit', 1) ?? 250;
    const target = resolvePath(context.cwd, optionalString(input, 'path') ?? '.');
    const fileGlob = optionalString(input, 'glob');
    const pattern = fileGlob ? (fileGlob.includes('/') ? fileGlob : `**/${fileGlob}`) : '**/*';
    const isFile = await stat(target).then((info) => info.isFile(), () => false);
    const files = isFile ? [target] : (await findFiles(target, pattern, context.signal, MAX_FILES)).files.sort();
    const out: string[] = [];
    let matchedFiles = 0;
    let total = 0;
    for (const file of files) {
      context.signal.throwIfAborted();
      const text = await readFile(file, 'utf8').catch(() => '');
      if (!text || text.length > MAX_FILE_BYTES || text.includes('\u0000')) continue;
      const lines = text.split('\n');
      const hits = lines.flatMap((line, i) => (regex.test(line) ? [i] : []));
      if (hits.length === 0) continue;
      matchedFiles++;
      total += hits.length;
      if (mode === 'files_with_matches') out.push(file);
      else if (mode === 'count') out.push(`${file}:${hits.length}`);
      else for (const i of hits) out.push(`${file}:${i + 1}:${lines[i]}`);
      if (out.length >= limit) break;
    }
    const shown = out.slice(0, limit);
    const body = shown.length ? shown.join('\n') : 'No matches found';
    return {
      content: out.length > limit ? `${body}\n(Showing the first ${limit} results)` : body,
      data: { mode, numFiles: matchedFiles, numMatches: total, filenames: mode === 'files_with_matches' ? shown : [] },
    };
  },
};
