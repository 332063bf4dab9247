/**
 * Grep: searches file contents with ripgrep, as Claude Code does. ripgrep's regex engine runs in
 * linear time (no catastrophic backtracking), and it runs as a child process group, so an
 * interrupt or a signal stops a search at once. The ripgrep is the one agentpipe's dependency
 * `@vscode/ripgrep` carries (`rg` on PATH where it has none for the platform): see ripgrep.ts.
 * ripgrep ends each file name with a NUL (`--null`), so every line of its output is known to come
 * from one file: a file a Read deny rule protects is left out of the answer.
 */
import { defaultSandbox } from '../../sandbox/config.ts';
import { childEnv } from '../../process/env.ts';
import { errorCode } from '../../process/errors.ts';
import { objectSchema, optionalBoolean, optionalNumber, optionalString, requireString, resolvePath } from '../input.ts';
import { ripgrepCommand } from '../ripgrep.ts';
import { workingFolders } from '../permissions.ts';
import { ToolInputError, toolUseError, type Tool, type ToolResult } from '../types.ts';
import { leadsElsewhere } from '../regular-file.ts';
import { realPath } from '../paths.ts';
import path from 'node:path';
import * as fsp from 'node:fs/promises';
import { relativeToCwd } from './walk.ts';

const MAX_FILE_SIZE = '2M';
const OUTPUT_CAP = 4 * 1024 * 1024;
const MODES = ['files_with_matches', 'content', 'count'] as const;
type Mode = (typeof MODES)[number];
const MODE_FLAGS: Record<Mode, string[]> = {
  files_with_matches: ['--files-with-matches'],
  count: ['--count'],
  content: ['--line-number', '--no-heading', '--with-filename'],
};

const RG_MISSING =
  'Grep needs ripgrep: reinstall agentpipe with its optional dependencies (@vscode/ripgrep carries the binary), ' +
  'or put rg on PATH outside the working folders (Debian/Ubuntu: apt-get install ripgrep; macOS: brew install ' +
  'ripgrep)';

/** One line of ripgrep's output: its file, and the rest (`line:text`, a count) unless it names a file only. */
interface Entry {
  file: string;
  rest?: string;
}

type Denied = (file: string) => string | undefined;

/**
 * ripgrep's records (`path\0rest\n`, or `path\0` alone for file names), their files `named` as the call names them,
 * without the files `denied` protects (by either name). A record is read from its start to the NUL that ends its file
 * name, then to the end of its line: a file name may hold a newline (never a NUL), and the lines of `secret/a\nb` are
 * not taken for lines of a file `b`. A tail with no NUL (output cut at the cap) is left out.
 */
function entries(stdout: string, mode: Mode, named: (file: string) => string, denied?: Denied): Entry[] {
  const all: Entry[] = [];
  for (let at = 0; at < stdout.length;) {
    const nul = stdout.indexOf('\0', at);
    if (nul === -1) break;
    const file = stdout.slice(at, nul);
    if (mode === 'files_with_matches') {
      if (file) all.push({ file });
      at = nul + 1;
      continue;
    }
    const end = stdout.indexOf('\n', nul);
    const stop = end === -1 ? stdout.length : end;
    all.push({ file, rest: stdout.slice(nul + 1, stop) });
    at = stop + 1;
  }
  return all.flatMap((entry) => {
    const file = named(entry.file);
    return denied?.(entry.file) || denied?.(file) ? [] : [{ ...entry, file }];
  });
}

/** Where ripgrep searches, and the names of what it finds as the call names them. */
interface Place {
  searched: string;
  named: (file: string) => string;
}

/**
 * Where ripgrep searches: the call's path; for a call judged (judged-path.ts), the real path it led to then, refused
 * (the reason returned) when the path no longer leads there: a folder on the way swapped for a link while the call was
 * asked would take an approved search elsewhere. What is found under the judged path is named under the call's path.
 */
function placeOf(target: string, judged: string | undefined): Place | string {
  if (judged === undefined) return { searched: target, named: (file) => file };
  const now = realPath(target);
  if (now !== judged) return leadsElsewhere(target, 'search', now, judged);
  const under = judged.endsWith(path.sep) ? judged : `${judged}${path.sep}`;
  return {
    searched: judged,
    named: (file) =>
      file === judged ? target : file.startsWith(under) ? path.join(target, file.slice(under.length)) : file,
  };
}

/** Files newest first, ties by name, as Claude Code 2.1.332 lists Grep's files. */
async function newestFirst(files: string[]): Promise<string[]> {
  const times = await Promise.all(
    files.map((file) =>
      fsp.stat(file).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    ),
  );
  return files
    .map((file, i) => ({ file, mtime: times[i]! }))
    .sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    .map((f) => f.file);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The tool result of a search, in Claude Code 2.1.332's words and shapes (its Grep's result mapping). */
async function answer(mode: Mode, found: Entry[], limit: number, cwd: string): Promise<ToolResult> {
  const shown = (n: number) => Math.min(n, limit);
  const more = (n: number) => (n > limit ? limit : undefined);
  const pagination = (n: number) => (n > limit ? `limit: ${limit}` : '');
  if (mode === 'files_with_matches') {
    const all = (await newestFirst(found.map((e) => e.file))).map((file) => relativeToCwd(cwd, file));
    const files = all.slice(0, shown(all.length));
    const page = pagination(all.length);
    const content = files.length
      ? `Found ${plural(files.length, 'file')}${page ? ` ${page}` : ''}\n${files.join('\n')}`
      : 'No files found';
    const appliedLimit = more(all.length);
    return {
      content,
      data: {
        mode,
        filenames: files,
        numFiles: files.length,
        totalFiles: all.length,
        ...(appliedLimit ? { appliedLimit } : {}),
      },
    };
  }
  const lines = found.map(({ file, rest }) => `${relativeToCwd(cwd, file)}:${rest ?? ''}`);
  const text = lines.slice(0, shown(lines.length)).join('\n');
  const page = pagination(lines.length);
  const appliedLimit = more(lines.length);
  const limited = appliedLimit ? { appliedLimit } : {};
  if (mode === 'content') {
    const body = text || 'No matches found';
    return {
      content: page ? `${body}\n\n[Showing results with pagination = ${page}]` : body,
      data: {
        mode,
        numFiles: 0,
        filenames: [],
        content: text,
        numLines: shown(lines.length),
        totalLines: lines.length,
        ...limited,
      },
    };
  }
  const numMatches = found.reduce((n, e) => n + Number(e.rest ?? 0), 0);
  const numFiles = found.length;
  const summary =
    `\n\nFound ${plural(numMatches, 'total occurrence')} across ` +
    `${plural(numFiles, 'file')}.${page ? ` with pagination = ${page}` : ''}`;
  return {
    content: (text || (numMatches > 0 ? 'No entries at this offset' : 'No matches found')) + summary,
    data: { mode, numFiles, filenames: [], content: text, numMatches, ...limited },
  };
}

export const grepTool: Tool = {
  name: 'Grep',
  description:
    'Searches file contents with a regular expression (ripgrep syntax: Rust regex, no look-around or ' +
    'backreferences). ' +
    'output_mode: files_with_matches (default), content (matching lines with numbers) or count.',
  inputSchema: objectSchema(
    {
      pattern: { type: 'string', description: 'Regular expression' },
      path: { type: 'string', description: 'File or folder to search (default: the working folder)' },
      glob: { type: 'string', description: 'Only files matching this glob (e.g. "*.ts")' },
      output_mode: { type: 'string', enum: [...MODES] },
      '-i': { type: 'boolean', description: 'Case insensitive' },
      head_limit: { type: 'number', description: 'Return at most this many lines/entries' },
    },
    ['pattern'],
  ),
  isReadOnly: () => true,
  readsPath: true,
  async call(input, context): Promise<ToolResult> {
    const pattern = requireString(input, 'pattern');
    const mode = (optionalString(input, 'output_mode') ?? 'files_with_matches') as Mode;
    if (!MODES.includes(mode)) throw new ToolInputError('output_mode must be files_with_matches, content or count');
    const limit = optionalNumber(input, 'head_limit', 1) ?? 250;
    const place = placeOf(resolvePath(context.cwd, optionalString(input, 'path') ?? '.'), context.judgedPath);
    if (typeof place === 'string') return toolUseError(place);
    const glob = optionalString(input, 'glob');
    // Inside the sandbox a missing program is only "execvp failed": look for it first (never in a working folder).
    const rg = await ripgrepCommand(workingFolders(context.cwd, context.sandbox?.config.directories));
    if (rg === undefined) throw new ToolInputError(RG_MISSING);
    const argv = [
      rg,
      ...MODE_FLAGS[mode],
      '--sort',
      'path',
      '--no-config',
      '--no-messages',
      '--null',
      '--color',
      'never',
      '--max-filesize',
      MAX_FILE_SIZE,
      '--glob',
      '!.git',
      '--glob',
      '!node_modules',
      ...(optionalBoolean(input, '-i') ? ['--ignore-case'] : []),
      ...(glob ? ['--glob', glob] : []),
      '--regexp',
      pattern,
      '--',
      place.searched,
    ];
    // ripgrep reads only: it runs in the read-only sandbox (no writes, no network, no credential stores).
    const { runSandboxed } = await import('../../sandbox/run.ts');
    const run = await runSandboxed(context.sandbox?.config ?? defaultSandbox(context.cwd), {
      profile: 'read-only',
      command: argv,
      cwd: context.cwd,
      env: childEnv(),
      signal: context.signal,
      cap: OUTPUT_CAP,
      graceMs: 500,
    });
    if (run.error) {
      const missing = errorCode(run.error) === 'ENOENT';
      throw new ToolInputError(missing ? RG_MISSING : `Grep could not run ripgrep: ${run.error.message}`);
    }
    context.signal.throwIfAborted();
    // ripgrep: 0 matches found, 1 none, 2 an error (a bad pattern says why on stderr).
    if (run.code === 2 && !run.stdout) {
      const why = run.stderr.trim().split('\n').slice(0, 6).join('\n');
      // Claude Code's words, as the call's error (no <tool_use_error> tags).
      return {
        content: `Search failed — ripgrep rejected the pattern, glob, or file type without searching:\n${why}`,
        isError: true,
      };
    }
    return answer(mode, entries(run.stdout, mode, place.named, context.readDenied), limit, context.cwd);
  },
};
