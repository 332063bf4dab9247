/**
 * What a permission prompt shows besides the call, as Claude Code 2.1.332 fills `can_use_tool`:
 * the tool's display name, a one-line description of the call, why it asks, the path it asks
 * about, and the permission updates the user could accept instead of a one-off answer
 * (`permission_suggestions`), computed as Claude Code computes them for the common cases:
 * - Bash: an allow rule for the command's prefix `<command> <subcommand> *` when the command has a
 *   plain-word subcommand (`npm test *`), else for the exact command (Claude Code's rule, ported);
 *   when the line writes a path (shell/blocked-path.ts), that path as `blockedPath`, its folder
 *   to add, and (for a writing program, not a redirection) acceptEdits, with no reason given;
 * - Edit, Write, NotebookEdit inside the working folder: switch the session to acceptEdits;
 * - Read outside the working folders: an allow rule for the file's folder, for this session;
 * - WebFetch: an allow rule for the URL's domain.
 * Other calls get none.
 */
import path from 'node:path';
import type { PermissionUpdate } from '../messages/control.ts';
import { isInside } from '../process/paths.ts';
import { expandPath, realPath } from './paths.ts';
import { targetPath } from './permissions.ts';

export interface PermissionPromptInfo {
  suggestions: PermissionUpdate[];
  displayName: string;
  description?: string;
  decisionReason?: string;
  decisionReasonType?: 'other' | 'workingDir';
  /** The path the prompt is about (a Bash line's first written path). */
  blockedPath?: string;
}

const EDIT_TOOLS = new Set(['Edit', 'Write', 'NotebookEdit']);

/**
 * The prompt details of a call of `toolName` with `input` in `cwd` (`directories`: the other
 * working folders, `--add-dir`).
 */
export async function permissionPromptInfo(
  toolName: string,
  input: Record<string, unknown>,
  cwd: string,
  directories: string[] = [],
): Promise<PermissionPromptInfo> {
  const info: PermissionPromptInfo = { suggestions: [], displayName: toolName };
  if (toolName === 'Bash' && typeof input.command === 'string') return bashPromptInfo(info, input.command, cwd);
  // The path the tool will write or read, not a decoy member beside it (Grep's and Glob's folder is not shown).
  const file = toolName === 'Grep' || toolName === 'Glob' ? undefined : targetPath(input, toolName);
  if (typeof file === 'string') {
    const absolute = path.resolve(cwd, file);
    const relative = path.relative(cwd, absolute);
    const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    info.description = inside ? relative : absolute;
    if (EDIT_TOOLS.has(toolName) && inside)
      info.suggestions = [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }];
    const real = realPath(expandPath(cwd, file));
    const folders = [cwd, ...directories].map((dir) => realPath(expandPath(cwd, dir)));
    if (toolName === 'Read' && !folders.some((dir) => isInside(real, dir))) {
      info.decisionReason = 'Path is outside allowed working directories';
      info.decisionReasonType = 'workingDir';
      // Claude Code's rule syntax: `//` starts an absolute path.
      const rule = { toolName: 'Read', ruleContent: `/${path.dirname(absolute)}/**` };
      info.suggestions = [{ type: 'addRules', rules: [rule], behavior: 'allow', destination: 'session' }];
    }
    return info;
  }
  if (toolName === 'WebFetch' && typeof input.url === 'string') {
    info.description = input.url;
    const host = URL.parse(input.url)?.hostname;
    if (host)
      info.suggestions = [
        {
          type: 'addRules',
          rules: [{ toolName: 'WebFetch', ruleContent: `domain:${host}` }],
          behavior: 'allow',
          destination: 'localSettings',
        },
      ];
  }
  return info;
}

/** A Bash prompt: the prefix rule, and the path the line writes with its folder and acceptEdits, or a reason. */
async function bashPromptInfo(info: PermissionPromptInfo, command: string, cwd: string): Promise<PermissionPromptInfo> {
  const prefix = commandPrefix(command);
  info.suggestions = [
    {
      type: 'addRules',
      rules: [{ toolName: 'Bash', ruleContent: prefix ? `${prefix} *` : command }],
      behavior: 'allow',
      destination: 'localSettings',
    },
  ];
  info.description = command;
  const { blockedPath } = await import('./shell/blocked-path.ts');
  // A line the parser cannot read names no path: the prompt then gives the plain reason.
  const blocked = await blockedPath(command, cwd).catch(() => undefined);
  if (!blocked) {
    info.decisionReason = 'This command requires approval';
    info.decisionReasonType = 'other';
    return info;
  }
  info.blockedPath = blocked.path;
  info.suggestions.push({ type: 'addDirectories', directories: [path.dirname(blocked.path)], destination: 'session' });
  if (blocked.by === 'command') info.suggestions.push({ type: 'setMode', mode: 'acceptEdits', destination: 'session' });
  return info;
}

/** Leading variables a prefix may skip (Claude Code's list); any other assignment means no prefix. */
const SAFE_ENV = new Set([
  'GOEXPERIMENT', 'GOOS', 'GOARCH', 'CGO_ENABLED', 'GO111MODULE', 'RUST_BACKTRACE', 'RUST_LOG', 'NODE_ENV',
  'PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE', 'PYTEST_DISABLE_PLUGIN_AUTOLOAD', 'PYTEST_DEBUG',
  'ANTHROPIC_API_KEY', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_TIME', 'CHARSET', 'TERM', 'COLORTERM',
  'NO_COLOR', 'FORCE_COLOR', 'TZ', 'LS_COLORS', 'LSCOLORS', 'GREP_COLOR', 'GREP_COLORS', 'GCC_COLORS',
  'TIME_STYLE', 'BLOCK_SIZE', 'BLOCKSIZE', 'COLUMNS', 'LINES', 'CLICOLOR', 'CLICOLOR_FORCE', 'CI',
  'DEBIAN_FRONTEND', 'GIT_TERMINAL_PROMPT',
]); // prettier-ignore

/** Commands that run another command: no prefix rule for them (Claude Code's list). */
const WRAPPERS = new Set([
  'sh', 'bash', 'zsh', 'fish', 'csh', 'tcsh', 'ksh', 'dash', 'cmd', 'powershell', 'pwsh', 'env', 'xargs',
  'command', 'builtin', 'noglob', 'nice', 'stdbuf', 'nohup', 'timeout', 'time', 'watch', 'ionice', 'chrt',
  'setsid', 'taskset', 'strace', 'ltrace', 'script', 'flock', 'unshare', 'nsenter', 'sudo', 'doas', 'pkexec',
  'su', 'runuser',
]); // prettier-ignore

/** `npm test` of `npm test -- --grep x`: the command and a plain-word subcommand, or null. */
export function commandPrefix(command: string): string | null {
  const words = command.trim().split(/\s+/).filter(Boolean);
  let at = 0;
  while (at < words.length && /^[A-Za-z_]\w*=/.test(words[at]!)) {
    if (!SAFE_ENV.has(words[at]!.split('=')[0]!)) return null;
    at++;
  }
  const rest = words.slice(at);
  if (rest.length < 2 || WRAPPERS.has(rest[0]!.split('/').pop()!)) return null;
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(rest[1]!)) return null;
  return rest.slice(0, 2).join(' ');
}
