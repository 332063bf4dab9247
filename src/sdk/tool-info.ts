/** How a tool call looks in ACP: its kind (icon), title, locations and diff content (absolute paths). */
import path from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from './acp-types.ts';
import { isRecord, str } from '../process/guards.ts';

const KINDS: Record<string, ToolKind> = {
  Read: 'read',
  NotebookRead: 'read',
  Edit: 'edit',
  MultiEdit: 'edit',
  Write: 'edit',
  NotebookEdit: 'edit',
  Glob: 'search',
  Grep: 'search',
  LS: 'search',
  Bash: 'execute',
  BashOutput: 'execute',
  KillShell: 'execute',
  KillBash: 'execute',
  Task: 'think',
  Agent: 'think',
  WebFetch: 'fetch',
  WebSearch: 'fetch',
  ExitPlanMode: 'switch_mode',
};

export function toolKind(name: string): ToolKind {
  return Object.hasOwn(KINDS, name) ? KINDS[name] : 'other';
}

/** A short human title: `Read src/a.ts`, `` `ls -la` ``, `server: tool` for MCP tools. */
export function toolTitle(name: string, input: Record<string, unknown>): string {
  const file = str(input.file_path) ?? str(input.notebook_path);
  switch (name) {
    case 'Read':
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'NotebookEdit':
    case 'NotebookRead':
      return file ? `${name} ${file}` : name;
    case 'Bash':
      return str(input.description) ?? (str(input.command) ? `\`${str(input.command)}\`` : 'Bash');
    case 'Glob':
      return `Find ${str(input.pattern) ?? ''}${str(input.path) ? ` in ${str(input.path)}` : ''}`.trim();
    case 'Grep':
      return `grep "${str(input.pattern) ?? ''}"${str(input.path) ? ` ${str(input.path)}` : ''}`;
    case 'Task':
    case 'Agent':
      return str(input.description) ?? 'Task';
    case 'WebFetch':
      return `Fetch ${str(input.url) ?? ''}`.trim();
    case 'WebSearch':
      return `Search "${str(input.query) ?? ''}"`;
    case 'TodoWrite':
      return 'Update plan';
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  return mcp ? `${mcp[1]}: ${mcp[2]}` : name;
}

const abs = (cwd: string, file: string): string => (cwd ? path.resolve(cwd, file) : file);

export function toolLocations(name: string, input: Record<string, unknown>, cwd = ''): ToolCallLocation[] | undefined {
  const file = str(input.file_path) ?? str(input.notebook_path);
  if (file)
    return [
      { path: abs(cwd, file), ...(name === 'Read' && typeof input.offset === 'number' ? { line: input.offset } : {}) },
    ];
  const dir = str(input.path);
  return dir && (name === 'Glob' || name === 'Grep' || name === 'LS') ? [{ path: abs(cwd, dir) }] : undefined;
}

/** Diffs of file-editing calls, known before they run. */
/**
 * The whole-file diff of a finished Edit or Write, from its `tool_use_result` (`originalFile` and
 * the new content): a viewer then numbers the changed lines as they are in the file. NotebookEdit's
 * is the notebook's JSON before and after. Undefined when the result does not carry the file.
 */
export function fileDiff(name: string, input: Record<string, unknown>, result: unknown): ToolCallContent[] | undefined {
  if (!isRecord(result)) return undefined;
  if (name === 'NotebookEdit') {
    const edit = result;
    const notebook = str(edit.notebook_path);
    const [before, after] = [str(edit.original_file), str(edit.updated_file)];
    return notebook && before !== undefined && after !== undefined
      ? [{ type: 'diff', path: notebook, oldText: before, newText: after }]
      : undefined;
  }
  const data = result;
  const file = str(data.filePath);
  const before = typeof data.originalFile === 'string' ? data.originalFile : null;
  if (!file) return undefined;
  if (name === 'Write' && typeof data.content === 'string')
    return [{ type: 'diff', path: file, oldText: before, newText: data.content }];
  const oldString = str(input.old_string);
  if (name === 'Edit' && before !== null && oldString !== undefined && typeof input.new_string === 'string') {
    const newString = input.new_string;
    const after =
      input.replace_all === true ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    return [{ type: 'diff', path: file, oldText: before, newText: after }];
  }
  return undefined;
}

export function toolDiffs(name: string, input: Record<string, unknown>, cwd = ''): ToolCallContent[] | undefined {
  const given = str(input.file_path);
  if (!given) return undefined;
  const file = abs(cwd, given);
  if (name === 'Write' && typeof input.content === 'string')
    return [{ type: 'diff', path: file, oldText: null, newText: input.content }];
  if (name === 'Edit' && typeof input.new_string === 'string')
    return [{ type: 'diff', path: file, oldText: str(input.old_string) ?? null, newText: input.new_string }];
  if (name === 'MultiEdit' && Array.isArray(input.edits)) {
    return input.edits.map((e: Record<string, unknown>) => ({
      type: 'diff' as const,
      path: file,
      oldText: str(e.old_string) ?? null,
      newText: str(e.new_string) ?? '',
    }));
  }
  return undefined;
}
