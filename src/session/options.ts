/**
 * The one set of session options, shared by every entry point: the CLI maps its flags onto
 * these names, the library takes them as they are.
 */
import type { PermissionMode } from '../messages/types.ts';
import type { ModelOptions } from '../model/resolve.ts';
import type { EffortLevel, ThinkingConfig } from '../model/types.ts';
import type { SettingSource } from './setting-sources.ts';
import type { CanUseTool } from '../agent/context.ts';
import type { RunGuard } from '../agent/run-guard.ts';
import type { OutcomePolicyName } from '../agent/outcome-policy.ts';
import type { AgentDefinition } from '../agent/subagent.ts';
import type { HookCallbacks } from '../tools/hooks/types.ts';
import type { Tool } from '../tools/types.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';
import type { HarnessName } from '../harness/types.ts';
import type { SandboxMode, SandboxSettings } from '../sandbox/config.ts';
import type { ReplayTools } from '../model/tape/format.ts';
import type { TelemetryOption } from '../telemetry/types.ts';

export interface SessionOptions extends ModelOptions {
  /**
   * OpenTelemetry traces and metrics of the session's prompts (`--otel`; off by default): `true` exports with the
   * standard OTEL_* variables, an object may bring your own `tracerProvider` / `meterProvider` and a `traceparent`.
   * See docs/telemetry.md.
   */
  telemetry?: TelemetryOption;
  /**
   * The agent that runs the session (`--harness`): agentpipe's own loop (default), or a wrapped
   * CLI (`claude`, `codex`, `gemini`, `qwen`, `acp`) whose output becomes the same message stream.
   */
  harness?: HarnessName;
  /** The wrapped agent's command line (`--harness-command`); default: its CLI on PATH. */
  harnessCommand?: string;
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
  /**
   * Emit `system/hook_started` before each hook runs and `hook_response` after it (without it, only SessionStart
   * and Setup hooks' `hook_response`, as in Claude Code 2.1.332).
   */
  includeHookEvents?: boolean;
  /** Session id (a UUID); generated when absent. */
  sessionId?: string;
  /** Decides calls that the rules leave open. */
  canUseTool?: CanUseTool;
  /** Hook points of the agent loop. */
  /**
   * In-process hook callbacks: `{PreToolUse: [{matcher: 'Bash', hooks: [async (input, toolUseId, {signal}) =>
   * ({...})]}]}`.
   */
  hooks?: HookCallbacks;
  /** Settings with command hooks (`--settings`): a file path, a JSON string or the parsed object. */
  settings?: string | Record<string, unknown>;
  /** Subagents for the `Task` tool (`--agents`); 'general-purpose' is always added. */
  agents?: Record<string, AgentDefinition>;
  /** Extra tools (custom tools from `defineTool`, or any Tool). */
  extraTools?: Tool[];
  /**
   * MCP servers by name (Claude Code's `mcpServers`): stdio `{command, args, env, cwd}`, or `{type: 'http' | 'sse',
   * url, headers}`.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /** Heartbeat threshold and interval of `tool_progress` (ms). */
  toolProgressThresholdMs?: number;
  toolProgressIntervalMs?: number;
  /**
   * Retries of failed model requests (default: CLAUDE_CODE_MAX_RETRIES, else the outcome policy's: 10 for
   * `claude-code`, 3 for `agentpipe`; `src/agent/retry.ts` says which failures).
   */
  maxRetries?: number;
  /**
   * Whose contract the session's outcomes follow (`--outcome-policy`): `claude-code` (default; Claude Code 2.1.332's
   * retries, a reply cut at max_tokens continued and an empty one nudged, a budget stop before the tools, Edit's
   * `replace_all: false` filled in) or `agentpipe` (agentpipe's own, which the Codex and ACP faces use). See
   * `src/agent/outcome-policy.ts` and docs/compat.md.
   */
  outcomePolicy?: OutcomePolicyName;
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
  /**
   * With resumeSessionAt: the prompt uuid of the turn being dropped; the resume is refused when more than that turn
   * would go.
   */
  resumeDropsTurn?: string;
  /**
   * Send every transcript line to the client as `transcript_mirror` (the official SDK's `sessionStore`),
   * and resume from the copy the SDK puts under `$CLAUDE_CONFIG_DIR/projects/`.
   */
  sessionMirror?: boolean;
  /** Context size that triggers automatic compaction (default: the model's window). */
  maxContextTokens?: number;
  /** The final answer must be JSON valid against this schema (`--json-schema`). */
  outputFormat?: { type: 'json_schema'; schema: Record<string, unknown> };
  /** Retries when the final answer does not validate (default 3). */
  maxStructuredOutputRetries?: number;
  /** A shell command that prints the API key (`--api-key-helper`); run when a key is needed. */
  apiKeyHelper?: string;
  /**
   * Model(s) to switch to when a request fails with overloaded, model_not_found or server errors
   * after the retries (`--fallback-model`; comma-separated to try several in order). The switch
   * holds for the rest of the prompt; the next prompt tries the session's model again.
   */
  fallbackModel?: string;
  /** Reasoning effort (`--effort`): Anthropic `output_config.effort`, OpenAI `reasoning_effort`. */
  effort?: EffortLevel;
  /** Thinking (`--thinking`, `--thinking-display`); wins over `maxThinkingTokens`. */
  thinking?: ThinkingConfig;
  /** Anthropic betas (`--betas`), sent as the `anthropic-beta` header. */
  betas?: string[];
  /** Extra folders the agent works in (`--add-dir`): named in the system prompt, covered by acceptEdits. */
  additionalDirectories?: string[];
  /**
   * Settings files to load (`--setting-sources`): user ($AGENTPIPE_HOME/settings.json), project
   * (.agentpipe/settings.json), local (.agentpipe/settings.local.json); user and project also
   * bring their agent files (agents/*.md). Default: none for the
   * library; the CLI loads all three unless told otherwise.
   */
  settingSources?: SettingSource[];
  /**
   * Whether the project's own settings (`project`, `local`: `.agentpipe/settings.json`, `settings.local.json`,
   * `agents/*.md`) apply in a folder the user has not trusted (`agentpipe trust`). true (`--trust-project`): they
   * apply. false: only in a trusted folder; in another one each file is named on the log and left out (the CLI's
   * default when it reads every source by itself). Absent: they apply when `settingSources` names them, as the official
   * SDK's `settingSources` does (the CLI: an explicit `--setting-sources`).
   */
  trustProject?: boolean;
  /** Only the MCP servers of `mcpServers` (`--strict-mcp-config`): the settings files' `mcpServers` are left out. */
  strictMcpConfig?: boolean;
  /**
   * Run the main thread as this agent (`--agent`): its prompt, tools and model (from `agents` or `initialize.agents`).
   */
  agent?: string;
  /**
   * The OS sandbox of every command the session starts (`--sandbox`): `auto` (default: on wherever
   * bubblewrap can start, one stderr line where it cannot), `required` (fail closed) or `off`; or a
   * `sandbox` settings block in Claude Code's shape (the official SDK's `sandbox` option), which
   * joins the settings layers as they are read from `--settings`.
   */
  sandbox?: SandboxMode | SandboxSettings;
  /** Debug lines (`--debug [filter]`): true, or a category filter like "api,tools" or "!control". */
  debug?: boolean | string;
  /** Write the debug lines to this file instead of stderr (`--debug-file`; implies debug). */
  debugFile?: string;
  /**
   * Checked before every model request and tool call, and told of each tool call before it starts (a cluster worker's
   * run: its lease and tool journal). Not an option of the CLI or of the library.
   */
  runGuard?: RunGuard;
  /**
   * With resume: a transcript that ends in the middle of a turn leaves the turn open, and the session goes on with it
   * when its prompt comes again (same uuid) instead of closing it as interrupted (a cluster worker taking a session
   * over). Not an option of the CLI or of the library.
   */
  continueCutTurn?: boolean;
  /** Record the session on this tape (`--record`): see docs/tapes.md. */
  record?: string;
  /** Answer every model request from this tape, offline (`--replay`); a request not on it ends the prompt. */
  replay?: string;
  /** With `replay`: run tool calls for real (`run`, default) or answer them from the tape (`tape`). */
  replayTools?: ReplayTools;
  /** With `replay`: the message uuid after which the session goes on live (a fork). */
  replayUntil?: string;
  /**
   * With `replay`: run under the tape's session id when it is free here (default true). `serve` and `acp`, whose
   * clients may replay one tape at once, give each session its own.
   */
  replaySessionId?: boolean;
}
