/**
 * Grep: searches file contents with ripgrep, as Claude Code does. ripgrep's regex engine runs in
 * linear time (no catastrophic backtracking), and it runs as a child process group, so an
 * interrupt or a signal stops a search at once. The ripgrep is the one agentpipe's dependency
 * `@vscode/ripgrep` carries (`rg` on PATH where it has none for the platform): see ripgrep.ts.
 * ripgrep ends each file name with a NUL (`--null`), so every line of its output is known to come
 * from one file: a file a Read deny rule protects is left out of the answer.
 */
import { findExecutable } from '../../process/executable.ts';
import { defaultSandbox } from '../../sandbox/config.ts';
import { childEnv } from '../../process/env.ts';
import { errorCode } from '../../process/errors.ts';
import { objectSchema, optionalBoolean, optionalNumber, optionalString, requireString, resolvePath } from '../input.ts';
import { ripgrepCommand } from '../ripgrep.ts';
import type { Tool, ToolResult } from '../types.ts';
import { ToolInputError } from '../types.ts';

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
  'Grep needs ripgrep: reinstall agentpipe with its optional dependencies (@vscode/ripgrep carries ' +
  'the binary), or put rg on PATH (Debian/Ubuntu: apt-get install ripgrep; macOS: brew install ripgrep)';

/**
 * ripgrep's lines (`path\0rest`, or `path\0` alone for file names) as `path:rest`, without the
 * files `denied` protects; a line whose file is not known (no NUL) is left out.
 */
function lines(stdout: string, mode: Mode, denied?: (file: string) => string | undefined): string[] {
  const entries =
    mode === 'files_with_matches'
      ? stdout.split('\0').flatMap((file) => (file ? [{ file, rest: undefined }] : []))
      : stdout.split('\n').flatMap((line) => {
          const nul = line.indexOf('\0');
          return nul === -1 ? [] : [{ file: line.slice(0, nul), rest: line.slice(nul + 1) }];
        });
  return entries
    .filter(({ file }) => !denied?.(file))
    .map(({ file, rest }) => (rest === undefined ? file : `${file}:${rest}`));
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
  async call(input, context): Promise<ToolResult> {
    const pattern = requireString(input, 'pattern');
    const mode = (optionalString(input, 'output_mode') ?? 'files_with_matches') as Mode;
    if (!MODES.includes(mode)) throw new ToolInputError('output_mode must be files_with_matches, content or count');
    const limit = optionalNumber(input, 'head_limit', 1) ?? 250;
    const target = resolvePath(context.cwd, optionalString(input, 'path') ?? '.');
    const glob = optionalString(input, 'glob');
    const rg = await ripgrepCommand();
    // Inside the sandbox a missing program is only "execvp failed": look for it first.
    if (rg === 'rg' && !findExecutable('rg')) throw new ToolInputError(RG_MISSING);
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
      target,
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
    if (run.code === 2 && !run.stdout)
      throw new ToolInputError(`Invalid search: ${run.stderr.trim().split('\n').slice(0, 6).join('\n')}`);
    const out = lines(run.stdout, mode, context.readDenied);
    const numMatches =
      mode === 'content'
        ? out.length
        : mode === 'count'
          ? out.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(':') + 1)), 0)
          : out.length;
    const shown = out.slice(0, limit);
    const body = shown.length ? shown.join('\n') : 'No matches found';
    const more = out.length > limit || run.dropped.stdout > 0;
    return {
      content: more ? `${body}\n(Showing the first ${shown.length} results)` : body,
      data: {
        mode,
        numFiles: mode === 'content' ? new Set(out.map((l) => l.slice(0, l.indexOf(':')))).size : out.length,
        numMatches,
        filenames: mode === 'files_with_matches' ? shown : [],
      },
    };
  },
};
