/**
 * The one set of session options, shared by every entry point: the CLI maps its flags onto
 * these names, the library takes them as they are.
 */
import type { PermissionMode } from '../messages/types.ts';
import type { ModelOptions } from '../model/resolve.ts';
import type { CanUseTool } from '../agent/context.ts';
import type { AgentDefinition } from '../agent/subagent.ts';
import type { HookCallbacks } from '../tools/hooks/types.ts';
import type { Tool } from '../tools/types.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';

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
  /** In-process hook callbacks: `{PreToolUse: [{matcher: 'Bash', hooks: [async (input, toolUseId, {signal}) => ({...})]}]}`. */
  hooks?: HookCallbacks;
  /** Settings with command hooks (`--settings`): a file path, a JSON string or the parsed object. */
  settings?: string | Record<string, unknown>;
  /** Subagents for the `Task` tool (`--agents`); 'general-purpose' is always added. */
  agents?: Record<string, AgentDefinition>;
  /** Extra tools (custom tools from `defineTool`, or any Tool). */
  extraTools?: Tool[];
  /** MCP servers by name (Claude Code's `mcpServers`): stdio `{command, args, env, cwd}`, or `{type: 'http' | 'sse', url, headers}`. */
  mcpServers?: Record<string, McpServerConfig>;
  /** Heartbeat threshold and interval of `tool_progress` (ms). */
  toolProgressThresholdMs?: number;
  toolProgressIntervalMs?: number;
  /** Retries of failed model requests (default 3). */
  maxRetries?: number;
  /** Write the transcript to $AGENTPIPE_HOME/projects/<cwd>/<id>.jsonl (default true; `--no-session-persistence`). */
  persistSession?: boolean;
  /** Resume a session: its id or the path of its .jsonl transcript. */
  resume?: string;
  /** Resume the latest session of this folder. */
  continue?: boolean;
  /** With resume/continue: go on under a new session id, leaving the old transcript untouched. */
  forkSession?: boolean;
  /** With resume: keep the history up to and including this message uuid. */
  resumeSessionAt?: string;
  /** Context size that triggers automatic compaction (default: the model's window). */
  maxContextTokens?: number;
  /** The final answer must be JSON valid against this schema (`--json-schema`). */
  outputFormat?: { type: 'json_schema'; schema: Record<string, unknown> };
  /** Retries when the final answer does not validate (default 3). */
  maxStructuredOutputRetries?: number;
  /** A shell command that prints the API key (`--api-key-helper`); run when a key is needed. */
  apiKeyHelper?: string;
}
