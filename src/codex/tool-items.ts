/**
 * One tool call of agentpipe's stream as a Codex item: the item a `tool_use` opens, and the same
 * item completed by its `tool_result` (see items.ts for the table).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { structuredPatch } from 'diff';
import { withoutToolUseErrorTags } from '../messages/notices.ts';
import type { ToolResultBlock } from '../messages/types.ts';
import { fileDiff } from '../sdk/tool-info.ts';
import { AGENTPIPE_SERVER, type CodexItem, type FileChange, type ItemStatus } from './items.ts';
import { isRecord, str } from '../process/guards.ts';

const FILE_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

/** The text of a tool result, without agentpipe's `<tool_use_error>` tags. */
export function resultText(block: ToolResultBlock): string {
  const text =
    typeof block.content === 'string'
      ? block.content
      : block.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return withoutToolUseErrorTags(text);
}

/** The unified diff hunks that turn `before` into `after` (codex's `diff` of an update). */
export function hunksOf(file: string, before: string, after: string): string {
  const patch = structuredPatch(file, file, before, after, '', '', { context: 3 });
  return patch.hunks
    .map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join('\n')}\n`)
    .join('');
}

/** The item a tool call opens; undefined for TodoWrite and StructuredOutput (they are no items of their own). */
export function openToolItem(
  name: string,
  id: string,
  input: Record<string, unknown>,
  cwd: string,
): CodexItem | undefined {
  if (name === 'TodoWrite' || name === 'StructuredOutput') return undefined;
  if (name === 'Bash')
    return {
      kind: 'commandExecution',
      id,
      command: str(input.command) ?? '',
      cwd,
      output: '',
      exitCode: null,
      status: 'inProgress',
      durationMs: null,
    };
  if (FILE_TOOLS.has(name))
    return { kind: 'fileChange', id, changes: plannedChanges(name, input, cwd), status: 'inProgress' };
  if (name === 'WebSearch') return { kind: 'webSearch', id, query: str(input.query) ?? '', status: 'inProgress' };
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  return {
    kind: 'mcpToolCall',
    id,
    server: mcp ? mcp[1]! : AGENTPIPE_SERVER,
    tool: mcp ? mcp[2]! : name,
    arguments: input,
    result: null,
    error: null,
    status: 'inProgress',
    durationMs: null,
  };
}

/** The changes a file tool is about to make, known from its input (the diff of its strings). */
function plannedChanges(name: string, input: Record<string, unknown>, cwd: string): FileChange[] {
  const given = str(input.file_path) ?? str(input.notebook_path);
  if (!given) return [];
  const file = path.resolve(cwd, given);
  if (name === 'Write') {
    const content = str(input.content) ?? '';
    return existsSync(file) ? [{ path: file, kind: 'update', diff: '' }] : [{ path: file, kind: 'add', diff: content }];
  }
  if (name === 'Edit') {
    const oldString = str(input.old_string) ?? '';
    return [{ path: file, kind: 'update', diff: hunksOf(file, oldString, str(input.new_string) ?? '') }];
  }
  return [{ path: file, kind: 'update', diff: '' }];
}

/** How a finished call ended: its status, and whether it was refused before it ran. */
function statusOf(block: ToolResultBlock, declined: boolean): ItemStatus {
  if (declined) return 'declined';
  return block.is_error ? 'failed' : 'completed';
}

/** The item `open` completed by its result (`structured` is the message's `tool_use_result`). */
export function completeToolItem(
  open: CodexItem,
  block: ToolResultBlock,
  structured: unknown,
  context: { declined: boolean; durationMs: number; input: Record<string, unknown>; toolName: string },
): CodexItem {
  const status = statusOf(block, context.declined);
  const text = resultText(block);
  switch (open.kind) {
    case 'commandExecution':
      return {
        ...open,
        ...commandOutcome(block, structured, text, context.declined),
        status,
        durationMs: context.durationMs,
      };
    case 'fileChange':
      return { ...open, changes: finishedChanges(open.changes, context.toolName, context.input, structured), status };
    case 'webSearch':
      return { ...open, status };
    case 'mcpToolCall': {
      const failed = status !== 'completed';
      const content = Array.isArray(block.content) ? block.content : [{ type: 'text', text }];
      return {
        ...open,
        status: failed ? 'failed' : 'completed',
        error: failed ? text : null,
        result: failed ? null : { content, structuredContent: mcpStructured(structured) },
        durationMs: context.durationMs,
      };
    }
    default:
      return open;
  }
}

/** An MCP tool's structured content, when its result carries one. */
function mcpStructured(structured: unknown): unknown {
  if (isRecord(structured) && 'structuredContent' in structured) return structured.structuredContent ?? null;
  return null;
}

/** A Bash call's output and exit code, from its result (`Exit code N` then the output, when it failed). */
function commandOutcome(
  block: ToolResultBlock,
  structured: unknown,
  text: string,
  declined: boolean,
): { output: string; exitCode: number | null } {
  if (declined) return { output: text, exitCode: null };
  if (!block.is_error) {
    const stdout = isRecord(structured) ? str(structured.stdout) : undefined;
    return { output: stdout ?? (text === '(Bash completed with no output)' ? '' : text), exitCode: 0 };
  }
  const failed = /^Exit code (\d+)\n?/.exec(text);
  if (failed) return { output: text.slice(failed[0].length), exitCode: Number(failed[1]) };
  return { output: text, exitCode: null };
}

/** The changes of a finished file tool, from its result (the file before and after). */
function finishedChanges(
  planned: FileChange[],
  toolName: string,
  input: Record<string, unknown>,
  structured: unknown,
): FileChange[] {
  const [diff] = fileDiff(toolName, input, structured) ?? [];
  if (!diff || diff.type !== 'diff') return planned;
  if (diff.oldText === null || diff.oldText === undefined)
    return [{ path: diff.path, kind: 'add', diff: diff.newText }];
  return [{ path: diff.path, kind: 'update', diff: hunksOf(diff.path, diff.oldText, diff.newText) }];
}

/** The file before and after a finished file tool (for the turn's diff); undefined when not known. */
export function fileVersions(
  toolName: string,
  input: Record<string, unknown>,
  structured: unknown,
): { path: string; before: string | null; after: string } | undefined {
  const [diff] = fileDiff(toolName, input, structured) ?? [];
  if (!diff || diff.type !== 'diff') return undefined;
  return { path: diff.path, before: diff.oldText ?? null, after: diff.newText };
}
