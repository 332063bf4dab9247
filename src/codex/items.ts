/**
 * Codex's thread items in agentpipe's terms: the one item mapping that both Codex faces render
 * (`agentpipe exec` as `codex exec --json` lines, `agentpipe app-server` as v2 notifications). The
 * projector (projector.ts) turns agentpipe's message stream into these events:
 *
 * | agentpipe | item |
 * |---|---|
 * | text blocks (and their `stream_event` deltas) | `agentMessage` |
 * | thinking blocks (and deltas) | `reasoning` |
 * | Bash | `commandExecution`, its output as deltas, the exit code at the end |
 * | Edit, Write, MultiEdit, NotebookEdit | `fileChange` with a diff per file; the turn's whole diff after each |
 * | TodoWrite | a `plan` event (exec: a `todo_list` item; app-server: `turn/plan/updated`) |
 * | `mcp__<server>__<tool>` | `mcpToolCall` on that server |
 * | WebSearch | `webSearch` |
 * | any other tool (Read, Glob, Grep, WebFetch, Task, your own) | `mcpToolCall` on the server `agentpipe` |
 * | StructuredOutput (an output schema) | `agentMessage` holding the JSON |
 * | the prompt's echo | `userMessage` |
 * | `system/api_retry` | a `retry` event |
 */

import type { ResultMessage } from '../messages/types.ts';

/** How a command or a tool call ended. */
export type ItemStatus = 'inProgress' | 'completed' | 'failed' | 'declined';

/** One changed file: `diff` is the unified diff's hunks (for `add`, the new content; `delete`, the old). */
export interface FileChange {
  path: string;
  kind: 'add' | 'delete' | 'update';
  diff: string;
}

/** A step of the plan (TodoWrite's todos). */
export interface PlanStep {
  step: string;
  status: 'pending' | 'inProgress' | 'completed';
}

/** A part of the user's prompt. */
export type UserPart = { type: 'text'; text: string } | { type: 'image'; url: string };

/** An item of a turn. */
export type CodexItem =
  | { kind: 'userMessage'; id: string; content: UserPart[] }
  | { kind: 'agentMessage'; id: string; text: string }
  | { kind: 'reasoning'; id: string; text: string }
  | {
      kind: 'commandExecution';
      id: string;
      command: string;
      cwd: string;
      output: string;
      exitCode: number | null;
      status: ItemStatus;
      durationMs: number | null;
    }
  | { kind: 'fileChange'; id: string; changes: FileChange[]; status: ItemStatus }
  | {
      kind: 'mcpToolCall';
      id: string;
      server: string;
      tool: string;
      arguments: unknown;
      result: { content: unknown[]; structuredContent: unknown } | null;
      error: string | null;
      status: ItemStatus;
      durationMs: number | null;
    }
  | { kind: 'webSearch'; id: string; query: string; status: ItemStatus };

/** What the projector reports, in stream order. */
export type ItemEvent =
  | { type: 'started'; item: CodexItem }
  | { type: 'completed'; item: CodexItem }
  /** Streamed text of an open item: an agent message, a reasoning summary, or a command's output. */
  | { type: 'delta'; itemId: string; stream: 'agentMessage' | 'reasoning' | 'commandOutput'; delta: string }
  /** The whole plan, after each TodoWrite. */
  | { type: 'plan'; steps: PlanStep[] }
  /** The turn's aggregated unified diff, after each file change. */
  | { type: 'diff'; diff: string }
  /** One model request's token counts (Anthropic's convention, as in `usage` of agentpipe's messages). */
  | { type: 'usage'; usage: RequestUsage }
  /** A failed model request is tried again. */
  | { type: 'retry'; message: string };

/** Token counts of one model request. */
export interface RequestUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  output_tokens: number;
  thinking_tokens: number;
}

/** The server name of agentpipe's own tools when they show as `mcpToolCall` items. */
export const AGENTPIPE_SERVER = 'agentpipe';

/** Codex's token counts (input includes the cached tokens) from Anthropic-style counts. */
export function codexUsage(u: RequestUsage): {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
} {
  return {
    input_tokens: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
    cached_input_tokens: u.cache_read_input_tokens,
    cache_write_input_tokens: u.cache_creation_input_tokens,
    output_tokens: u.output_tokens,
    reasoning_output_tokens: u.thinking_tokens,
  };
}

/** Why a turn failed, or undefined when it completed. */
export function failureOf(result: ResultMessage): string | undefined {
  if (result.subtype === 'success') return result.is_error ? result.result || 'the model request failed' : undefined;
  return result.errors.join('; ') || result.subtype;
}
