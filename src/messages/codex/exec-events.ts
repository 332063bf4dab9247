/**
 * The JSON lines `codex exec --json` (`--experimental-json`) prints, one `ThreadEvent` per line: the union
 * `codex-rs/exec/src/exec_events.rs` declares, as codex-cli 0.169.0 prints it and as `@openai/codex-sdk` 0.163.0
 * reads it (its `events.ts` and `items.ts`). Written by `agentpipe exec`, read by the Codex harness when the wrapped
 * codex has no app-server.
 */

/** A thread's token counts of one turn (OpenAI's convention: `input_tokens` includes the cached ones). */
export interface ExecUsage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

/** Status of a command; `declined` when the approval was refused. */
export type ExecCommandStatus = 'in_progress' | 'completed' | 'failed' | 'declined';

/** One changed file of a `file_change`. */
export interface ExecFileUpdateChange {
  path: string;
  kind: 'add' | 'delete' | 'update';
}

/** A to-do of a `todo_list`. */
export interface ExecTodoItem {
  text: string;
  completed: boolean;
}

/** The items of a thread, flattened with their `id` and snake_case `type`. */
export type ExecThreadItem = { id: string } & (
  | { type: 'agent_message'; text: string }
  | { type: 'reasoning'; text: string }
  | {
      type: 'command_execution';
      command: string;
      aggregated_output: string;
      exit_code: number | null;
      status: ExecCommandStatus;
    }
  | { type: 'file_change'; changes: ExecFileUpdateChange[]; status: 'in_progress' | 'completed' | 'failed' }
  | {
      type: 'mcp_tool_call';
      server: string;
      tool: string;
      arguments: unknown;
      result: { content: unknown[]; structured_content: unknown } | null;
      error: { message: string } | null;
      status: 'in_progress' | 'completed' | 'failed';
    }
  | { type: 'web_search'; query: string; action: { type: 'search'; query?: string } | { type: 'other' } }
  | { type: 'todo_list'; items: ExecTodoItem[] }
  | { type: 'error'; message: string }
);

/** One line of `codex exec --json`. */
export type ExecThreadEvent =
  | { type: 'thread.started'; thread_id: string }
  | { type: 'turn.started' }
  | { type: 'turn.completed'; usage: ExecUsage }
  | { type: 'turn.failed'; error: { message: string } }
  | { type: 'item.started'; item: ExecThreadItem }
  | { type: 'item.updated'; item: ExecThreadItem }
  | { type: 'item.completed'; item: ExecThreadItem }
  | { type: 'error'; message: string };
