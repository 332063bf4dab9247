/**
 * What Qwen Code needs beyond Claude Code's stream-json (ClaudeStreamHarness serves both): its tool names as
 * agentpipe's, its approval modes, its own stream events, and the Write/Edit results it does not report.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isArray, isRecord } from '../process/guards.ts';
import { fileChangeResult, isFileCallName, type FileCall } from './file-changes.ts';
import type { HarnessConfig } from './types.ts';

/** Qwen Code's own `stream_event` types (its goal state, its tools' progress): known, and not passed on. */
export const QWEN_STREAM_EVENTS = new Set(['goal_state', 'tool_progress']);

/** Qwen Code's tools that are agentpipe's (Claude Code's) under another name, with the same input fields. */
export const QWEN_TOOLS: Record<string, string> = {
  run_shell_command: 'Bash',
  write_file: 'Write',
  edit: 'Edit',
  read_file: 'Read',
  glob: 'Glob',
  grep_search: 'Grep',
  web_fetch: 'WebFetch',
  todo_write: 'TodoWrite',
  list_directory: 'LS',
};

/**
 * Gives the tool calls of a Qwen Code assistant message agentpipe's names, so every face shows them as it shows its
 * own; returns them.
 */
export function renameTools(value: Record<string, unknown>): Array<Record<string, unknown>> {
  const message = value.message;
  if (!isRecord(message) || !isArray(message.content)) return [];
  const uses = message.content.filter(
    (b): b is Record<string, unknown> & { name: string } =>
      isRecord(b) && b.type === 'tool_use' && typeof b.name === 'string',
  );
  for (const block of uses) block.name = QWEN_TOOLS[block.name] ?? block.name;
  return uses;
}

/**
 * The Write/Edit results of a CLI that reports none (Qwen Code): the file is read when the call
 * is announced (before it runs: a permission prompt comes after) and when its result arrives,
 * and the result gets Claude Code's `tool_use_result`, so the faces show the diff.
 */
export class FileChanges {
  readonly #cwd: string;
  readonly #pending = new Map<string, FileCall & { before: Promise<string | null> }>();

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** Reads the files the announced Write/Edit calls will change. */
  watch(uses: Array<Record<string, unknown>>): void {
    for (const use of uses) {
      const input = isRecord(use.input) ? use.input : {};
      if (typeof use.name !== 'string' || !isFileCallName(use.name)) continue;
      if (typeof use.id !== 'string' || typeof input.file_path !== 'string') continue;
      const file = path.resolve(this.#cwd, input.file_path);
      this.#pending.set(use.id, { name: use.name, file, input, before: readFile(file, 'utf8').catch(() => null) });
    }
  }

  /** Adds `tool_use_result` to a user message carrying the result of a watched call. */
  async complete(value: Record<string, unknown>): Promise<void> {
    const message = value.message;
    if (!isRecord(message) || !isArray(message.content)) return;
    for (const block of message.content) {
      if (!isRecord(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
      const call = this.#pending.get(block.tool_use_id);
      if (!call) continue;
      this.#pending.delete(block.tool_use_id);
      if (block.is_error === true || value.tool_use_result !== undefined) continue;
      const after = await readFile(call.file, 'utf8').catch(() => null);
      const result = await fileChangeResult(call, await call.before, after, JSON.stringify(block.content));
      if (result) value.tool_use_result = result;
    }
  }
}

/** agentpipe's permission modes as Qwen Code's approval modes. */
export const QWEN_APPROVAL: Record<HarnessConfig['permissionMode'], string> = {
  default: 'default',
  acceptEdits: 'auto-edit',
  plan: 'plan',
  bypassPermissions: 'yolo',
  dontAsk: 'default',
};
