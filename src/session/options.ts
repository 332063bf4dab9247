/**
 * The one set of session options, shared by every entry point: the CLI maps its flags onto
 * these names, the library takes them as they are.
 */
import type { PermissionMode } from '../messages/types.ts';
import type { ModelOptions } from '../model/resolve.ts';
import type { CanUseTool, AgentHooks } from '../agent/context.ts';
import type { Tool } from '../tools/types.ts';

export interface SessionOptions extends ModelOptions {
  /** Working folder of the agent and its tools (default: process.cwd()). */
  cwd?: string;
  /** Replaces the default system prompt. */
  systemPrompt?: string;
  /** Appended to the system prompt. */
  appendSystemPrompt?: string;
  /** Ends a prompt with `error_max_turns` after this many model requests. */
  maxTurns?: number;
  /** Ends a prompt with `error_max_budget_usd` once this much was spent. */
  maxBudgetUsd?: number;
  /** Output token cap per request. */
  maxTokens?: number;
  /** Extended thinking budget. */
  maxThinkingTokens?: number;
  /** Permission rules that allow calls without asking (`Bash(git log:*)`, `Read`). */
  allowedTools?: string[];
  /** Permission rules that deny calls; a bare tool name hides the tool. */
  disallowedTools?: string[];
  /** Restricts the built-in tools to these names. */
  tools?: string[];
  permissionMode?: PermissionMode;
  /** Emit `stream_event` messages with the raw deltas. */
  includePartialMessages?: boolean;
  /** Session id (a UUID); generated when absent. */
  sessionId?: string;
  /** Decides calls that the rules leave open. */
  canUseTool?: CanUseTool;
  /** Hook points of the agent loop. */
  hooks?: AgentHooks;
  /** Extra tools (custom tools, MCP tools). */
  extraTools?: Tool[];
  /** Heartbeat threshold and interval of `tool_progress` (ms). */
  toolProgressThresholdMs?: number;
  toolProgressIntervalMs?: number;
  /** Retries of failed model requests (default 3). */
  maxRetries?: number;
}
