/** The tool contract: what a tool declares and what one call gets and returns. */
import { AgentpipeError } from '../process/errors.ts';
import type { ImageBlock, TextBlock } from '../messages/types.ts';
import { toolUseError as wrapToolUseError } from '../messages/notices.ts';
import type { ToolState } from './state.ts';
import type { CommandProfile, SandboxConfig } from '../sandbox/config.ts';
import type { ShellStart } from './shell/shell-cwd.ts';

/** What a running tool can see and use. */
export interface ToolContext {
  /** Working folder; relative paths resolve against it. */
  cwd: string;
  /** Aborts the call (interrupt, timeout); tools must stop their child processes on it. */
  signal: AbortSignal;
  sessionId: string;
  toolUseId: string;
  /** Reports partial output while the tool runs (shown as `tool_progress`). */
  onOutput?: (text: string) => void;
  /** What the session's tools remember between calls (TodoWrite's list, reads, checkpoints; `custom` for yours). */
  state: ToolState;
  /**
   * The session's sandbox and the profile this call was allowed for (read-only when the check called it read-only,
   * workspace when a rule, the user, a callback or the mode allowed it). Commands a tool starts run under it.
   */
  sandbox?: { config: SandboxConfig; profile: CommandProfile };
  /** For a shell tool: the folder its line starts in, as the permission check judged it (shell/shell-cwd.ts). */
  shell?: ShellStart;
  /**
   * Set when Read deny rules bind this tool: the rule (as text) that protects `file` (absolute),
   * or undefined. Tools that show many files (Grep's matches, Glob's results) leave protected ones out.
   */
  readDenied?: (file: string) => string | undefined;
  /**
   * For a tool that edits or reads files: the real location of its file when the permission check judged the call
   * (links followed). The tool refuses to write or read where the path no longer leads there (judged-path.ts).
   */
  judgedPath?: string;
  /**
   * The W3C `traceparent` of this call's `execute_tool` span (telemetry on): what an MCP request's `_meta` carries so
   * the server's spans join the trace.
   */
  traceparent?: string;
}

/** The outcome of a call. */
export interface ToolResult {
  /** What the model sees. */
  content: string | Array<TextBlock | ImageBlock>;
  /** True when the call failed; the model sees the content as an error. */
  isError?: boolean;
  /** Structured result for `tool_use_result` on the wire (kept out of the model's context). */
  data?: unknown;
  /**
   * The tool itself refused the call (a custom tool's `rejected`/`denied`): counted in `result.permission_denials` with
   * this reason.
   */
  denied?: string;
  /** The call gave the prompt's structured output (StructuredOutput): the run ends after this turn's calls, with it. */
  structuredOutput?: unknown;
  /** A command's exit code (Bash), for telemetry. */
  exitCode?: number;
}

/** A tool the model can call. */
export interface Tool {
  name: string;
  /**
   * The name the model is offered, when not `name`: Claude Code offers its subagent tool as `Agent` and lists it as
   * `Task` everywhere else (system/init, rules, hooks). A model's call of either name runs the tool.
   */
  readonly modelName?: string;
  description: string;
  /** JSON Schema of the input object. */
  inputSchema: Record<string, unknown>;
  /** True when this call changes nothing (no file writes, no side effects). */
  isReadOnly(input: Record<string, unknown>): boolean | Promise<boolean>;
  /**
   * `isReadOnly` is only what someone else claims (an MCP server's `readOnlyHint`): it lets such calls run side by
   * side, but the permission check treats the call as one that may change things (it asks, as Claude Code does).
   */
  readonly readOnlyClaimed?: boolean;
  /**
   * The input's `command` is a shell line: permissions judge its parse (deny rules per command, read-only per program).
   */
  readonly shell?: boolean;
  /**
   * The tool runs without a permission check of its own, in every mode (the task-list tools: they change the
   * session's list only). Its acceptance names no reason (`tool_result_meta`), as in Claude Code. Deny rules still
   * apply.
   */
  readonly needsNoPermission?: boolean;
  /** True for tools that edit files (auto-allowed in `acceptEdits`). */
  readonly editsFiles?: boolean;
  /**
   * True for a tool that reads what its path member names (Read's file, the folder or file Grep and Glob search): it
   * reads there as the check judged it to be, or not at all (judged-path.ts).
   */
  readonly readsPath?: boolean;
  /**
   * Members filled into a call that lacks them before it is shown or run, as Claude Code fills them (Edit's
   * `replace_all: false`): the stream, the transcript and the next request carry the completed input.
   */
  readonly inputDefaults?: Readonly<Record<string, unknown>>;
  /**
   * Checks a call against the file it names before anything runs (Edit: the strings differ, the file exists, the
   * string occurs once), returning the refusal the model sees (without the `<tool_use_error>` tags), or undefined.
   * The runner calls it before the hooks and the permission checks, as Claude Code does, but only when a Read of the
   * same path would run without asking (tools/validate-first.ts): its error must not tell the model anything of a
   * file it may not read. `call` checks again.
   */
  validate?(input: Record<string, unknown>, context: Pick<ToolContext, 'cwd'>): Promise<string | undefined>;
  call(input: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/**
 * A call the tool refused before doing anything (bad input, missing file, not read first): the
 * model sees the message wrapped as Claude Code wraps it, `<tool_use_error>…</tool_use_error>`.
 */
export function toolUseError(message: string): ToolResult {
  return { content: wrapToolUseError(message), isError: true };
}

/** An error whose message is meant for the model as the tool result. */
export class ToolInputError extends AgentpipeError {
  static override readonly errorName: string = 'ToolInputError';
}
