/**
 * The wire contract: every message agentpipe emits, field for field compatible with the
 * official Claude Agent SDK's `SDKMessage` union (test/types/sdk-compat.unit.test.ts proves it with
 * tsc). schema/messages.schema.json is generated from these types by scripts/gen-schema.ts
 * (`npm run schema`); the model-facing shapes (content blocks, stream events) are in api.ts.
 */
import type { ApiMessage, StreamEvent, UserContentBlock } from './api.ts';

export type * from './api.ts';

/** A UUID string (RFC 4122). */
export type UUID = `${string}-${string}-${string}-${string}-${string}`;

/** Permission modes, as in Claude Code. */
export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk';

/** Status of one MCP server as listed in `system/init`. */
export interface McpServerInfo {
  name: string;
  status: 'connected' | 'failed' | 'pending' | 'needs-auth' | 'disabled';
  error?: string;
  /** Where the server was configured, as Claude Code 2.1.332 says: `dynamic` (flags, options), `sdk` (in process). */
  source?: 'dynamic' | 'sdk';
}

/** Fields every emitted message carries. */
interface Envelope {
  uuid: UUID;
  session_id: string;
}

/** First message of every prompt: what the session runs with. */
export interface SystemInitMessage extends Envelope {
  type: 'system';
  subtype: 'init';
  cwd: string;
  tools: string[];
  mcp_servers: McpServerInfo[];
  model: string;
  permissionMode: PermissionMode;
  slash_commands: string[];
  apiKeySource: 'ANTHROPIC_API_KEY' | 'apiKeyHelper' | 'none' | 'user';
  claude_code_version: string;
  agentpipe_version: string;
  output_style: string;
  agents: string[];
  skills: string[];
  plugins: Array<{ name: string; path: string }>;
  /** Reasoning effort of the requests (`--effort`); absent when not set. */
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null;
  /** Anthropic betas sent with the requests (`--betas`). */
  betas?: string[];
  /** Protocol features a client may detect (Claude Code's: `interrupt_receipt_v1`, `interrupt_cancel_queued_v1`). */
  capabilities?: string[];
  /** Claude Code's fast mode: agentpipe has none, so `'off'`, as Claude Code sends it while the feature is off. */
  fast_mode_state?: 'off' | 'cooldown' | 'on';
  /**
   * Claude Code's (internal) flag that no analytics are sent, so clients hide per-message rating UI. agentpipe sends
   * no analytics at all: always true.
   */
  analytics_disabled?: boolean;
  /** Claude Code's (internal) flag that product feedback goes nowhere: agentpipe has none, always true. */
  product_feedback_disabled?: boolean;
  /** Why fast mode is off: `sdk_opt_in_required`, what Claude Code 2.1.332 sends in a headless run. */
  fast_mode_disabled_reason?: 'sdk_opt_in_required';
  /** True when the requests go to Anthropic's own API, false for another base URL or provider. */
  served_by_anthropic?: boolean;
  /** Whether commands run in an OS sandbox (as Claude Code's `sandbox_enabled`). */
  sandbox_enabled?: boolean;
  /** The working folder the session started in. */
  original_cwd?: string;
  /** The `--add-dir` folders. */
  additional_directories?: string[];
  /** Claude Code's per-turn effort and `ultrathink` keyword: agentpipe has neither, always false. */
  per_turn_effort_active?: boolean;
  ultrathink_available?: boolean;
  ultrathink_typed_raises?: boolean;
  /** Claude Code's view mode (`default` or `focus`): always `default` in a headless run. */
  view_mode?: 'default' | 'focus';
  /**
   * The wrapped agent when a harness runs the session (`--harness`: claude, codex, gemini, qwen, acp); absent for
   * agentpipe's own loop.
   */
  harness?: string;
  /** The wrapped agent's own session (thread) id: `--resume` of the agentpipe session resumes it. */
  harness_session_id?: string;
}

/**
 * How a client names an MCP tool call: the id of its `tool_use` block, its display name (the tool's
 * name, capitalized), and when the tool is known, the tool's own name and its server's.
 */
export interface ToolUseMeta {
  id: string;
  display_name: string;
  tool_name?: string;
  server_display_name?: string;
}

/** One content block of the model's answer (one message per block, as the real CLI does). */
export interface AssistantMessage extends Envelope {
  type: 'assistant';
  message: ApiMessage;
  parent_tool_use_id: string | null;
  error?:
    | 'authentication_failed'
    | 'billing_error'
    | 'rate_limit'
    | 'invalid_request'
    | 'server_error'
    | 'unknown'
    | 'max_output_tokens'
    | 'overloaded'
    | 'model_not_found';
  request_id?: string;
  /** For each MCP tool call of the message, how a client names it (Claude Code 2.1.332; agent/tool-use-meta.ts). */
  tool_use_meta?: ToolUseMeta[];
  /** When the block was emitted (Claude Code sends it on every assistant message). */
  timestamp?: string;
  /** On a thinking block's message: the request's `thinking.display`, and how long the block took to stream (ms). */
  thinking_display?: string;
  thinking_duration_ms?: number;
  /** The block an interrupt cut short (what had streamed of it), as Claude Code 2.1.332 marks it. */
  aborted?: true;
  /** A failed request's synthetic message: the HTTP status and error type the API answered, and the mark. */
  api_error_status?: number;
  api_error_type?: string;
  is_api_error_message?: true;
}

/**
 * How a tool call was decided (Claude Code 2.1.332's `tool_result_meta` entry): `accept` by the permission mode, a
 * rule (`subcommandResults` for a shell line's rules) or a hook; `reject` by a rule (`non_execution_kind:
 * permission-rule`) or for want of an allowance (`user-rejected`). A host's `canUseTool` answer names the user
 * (`user_temporary`, `user_permanent`, `user_reject`: its `decisionClassification`, else once or no); a denial that
 * interrupts has only `non_execution_kind: user-rejected`.
 */
export interface ToolResultMeta {
  id: string;
  permission_decision?: {
    decision: 'accept' | 'reject';
    source: 'config' | 'hook' | 'user_temporary' | 'user_permanent' | 'user_reject';
    reason_type?: 'mode' | 'rule' | 'subcommandResults' | 'hook' | 'classifier';
  };
  non_execution_kind?: 'user-rejected' | 'permission-rule' | 'automode-unavailable';
}

/** A user turn: a prompt, tool results, or the interruption notice. */
export interface UserMessage extends Envelope {
  type: 'user';
  message: { role: 'user'; content: string | UserContentBlock[] };
  parent_tool_use_id: string | null;
  isSynthetic?: boolean;
  /** Structured result of the tool (e.g. Bash's stdout/stderr), kept out of the model's context. */
  tool_use_result?: unknown;
  /** How each tool call of the message was let run or refused, as Claude Code 2.1.332 says it. */
  tool_result_meta?: ToolResultMeta[];
  timestamp?: string;
  /** True when a user message is echoed back by `--replay-user-messages`. */
  isReplay?: true;
}

/**
 * A raw streaming event (only with `--include-partial-messages`): the API's own event where the provider has it, with
 * the response's id, the time to its `message_start` and the thinking display asked for, as Claude Code 2.1.332 sends
 * them (`src/agent/partial-stream.ts`).
 */
export interface StreamEventMessage extends Envelope {
  type: 'stream_event';
  event: StreamEvent;
  parent_tool_use_id: string | null;
  /** The API's id of the response the event belongs to (`msg_…`), from its `message_start` on. */
  api_message_id?: string;
  /** On `message_start`: milliseconds from the request to it. */
  ttft_ms?: number;
  /** The request's `thinking.display`, on `message_start` and a thinking block's start and deltas. */
  thinking_display?: string;
  /**
   * On the `message_stop` agentpipe sends to close a response an interrupt cut short: the response, and the index of
   * its first block that has no `assistant` message (0: none has).
   */
  abandoned_blocks?: { api_message_id: string; from_block_index: number };
}

/** The running estimate of the streaming thinking block's tokens (a token per 4 characters), before each delta. */
export interface ThinkingTokensMessage extends Envelope {
  type: 'system';
  subtype: 'thinking_tokens';
  estimated_tokens: number;
  estimated_tokens_delta: number;
}

/** Heartbeat while a tool runs longer than the progress threshold. */
export interface ToolProgressMessage extends Envelope {
  type: 'tool_progress';
  tool_use_id: string;
  tool_name: string;
  parent_tool_use_id: string | null;
  elapsed_time_seconds: number;
  /** The latest partial output of the tool, when it streams some (e.g. Bash). */
  output?: string;
}

/** Credentials being obtained or failing. */
export interface AuthStatusMessage extends Envelope {
  type: 'auth_status';
  isAuthenticating: boolean;
  output: string[];
  error?: string;
}

/** Session status changes (compaction). */
export interface StatusMessage extends Envelope {
  type: 'system';
  subtype: 'status';
  status: 'compacting' | 'requesting' | null;
  permissionMode?: PermissionMode;
}

/** Marks where the history was summarized. */
export interface CompactBoundaryMessage extends Envelope {
  type: 'system';
  subtype: 'compact_boundary';
  compact_metadata: { trigger: 'manual' | 'auto'; pre_tokens: number; post_tokens?: number; duration_ms?: number };
}

/** The outcome of one executed hook. */
export interface HookResponseMessage extends Envelope {
  type: 'system';
  subtype: 'hook_response';
  hook_id: string;
  hook_name: string;
  hook_event: string;
  output: string;
  stdout: string;
  stderr: string;
  exit_code?: number;
  outcome: 'success' | 'error' | 'cancelled';
}

/** A hook begins (with `includeHookEvents`); its `hook_response` carries the same `hook_id`. */
export interface HookStartedMessage extends Envelope {
  type: 'system';
  subtype: 'hook_started';
  hook_id: string;
  hook_name: string;
  hook_event: string;
}

/** How much a task (a subagent) has done so far. */
export interface TaskUsage {
  total_tokens: number;
  tool_uses: number;
  duration_ms: number;
}

/** A subagent began (`Task`); `task_id` is the Task call's id, which `stop_task` takes. */
export interface TaskStartedMessage extends Envelope {
  type: 'system';
  subtype: 'task_started';
  task_id: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  task_type?: string;
  prompt?: string;
}

/** A subagent finished a tool call. */
export interface TaskProgressMessage extends Envelope {
  type: 'system';
  subtype: 'task_progress';
  task_id: string;
  tool_use_id?: string;
  description: string;
  subagent_type?: string;
  usage: TaskUsage;
  last_tool_name?: string;
}

/**
 * A subagent ended; `summary` is the start of its answer (or why it failed). agentpipe writes no output file:
 * `output_file` is ''.
 */
export interface TaskNotificationMessage extends Envelope {
  type: 'system';
  subtype: 'task_notification';
  task_id: string;
  tool_use_id?: string;
  status: 'completed' | 'failed' | 'stopped';
  output_file: string;
  summary: string;
  usage?: TaskUsage;
}

/** A tool call denied without asking anyone (a deny rule, the mode, or no way to ask); the tool result follows. */
export interface PermissionDeniedMessage extends Envelope {
  type: 'system';
  subtype: 'permission_denied';
  tool_name: string;
  tool_use_id: string;
  agent_id?: string;
  /** agentpipe's `rule`, `mode`, `no_permission_prompt`, or in the Claude faces Claude Code's (`workingDir` ...). */
  decision_reason_type?:
    'rule' | 'mode' | 'no_permission_prompt' | 'workingDir' | 'subcommandResults' | 'safetyCheck' | 'classifier';
  decision_reason?: string;
  /** Claude Code's code for the reason (`auto_mode_no_check_in_session`: plan mode's Bash check is unavailable). */
  decision_reason_code?: string;
  message: string;
}

/**
 * What became of a prompt a UserPromptSubmit hook stopped: blocked by its verdict, or (`no_verdict`) blocked because
 * the hook failed with `onFailure: "block"`.
 */
export type PromptSubmitOutcome =
  | { kind: 'blocked_by_hook'; prompt_kept: boolean; reason: string }
  | { kind: 'no_verdict'; no_verdict_kind: 'hook_failed'; prompt_kept: boolean; reason: string };

/**
 * A notice of the loop (Claude Code's `system/informational`): agentpipe sends one when a
 * UserPromptSubmit hook blocks the prompt (level `warning`, `prevent_continuation`), as Claude Code does.
 */
export interface InformationalMessage extends Envelope {
  type: 'system';
  subtype: 'informational';
  content: string;
  level: 'info' | 'notice' | 'suggestion' | 'warning';
  /** What the notice is about (`auto_mode_no_server_check`), and Claude Code's `isMeta: false` beside it. */
  tag?: string;
  isMeta?: boolean;
  timestamp?: string;
  tool_use_id?: string;
  prevent_continuation?: boolean;
  /** What became of a prompt a UserPromptSubmit hook blocked (Claude Code 2.1.332). */
  prompt_submit_outcome?: PromptSubmitOutcome;
}

/**
 * A short notice for a person (Claude Code's `system/notification`, its REPL's notification queue): agentpipe sends
 * `stop-hook-error` when a Stop hook fails, as Claude Code 2.1.332 does.
 */
export interface NotificationMessage extends Envelope {
  type: 'system';
  subtype: 'notification';
  key: string;
  text: string;
  priority: 'low' | 'medium' | 'high' | 'immediate';
  color?: string;
  timeout_ms?: number;
}

/** A retry of a failed model request. */
export interface ApiRetryMessage extends Envelope {
  type: 'system';
  subtype: 'api_retry';
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  error: 'authentication_failed' | 'rate_limit' | 'server_error' | 'unknown' | 'overloaded';
}

/**
 * The request failed on its model (overloaded, unknown model, server errors after the retries)
 * and goes on with a `--fallback-model`, for the rest of this prompt (additive to Claude Code's set).
 */
export interface ModelFallbackMessage extends Envelope {
  type: 'system';
  subtype: 'model_fallback';
  trigger: 'overloaded' | 'model_not_found' | 'server_error';
  original_model: string;
  fallback_model: string;
  error_status: number | null;
  /** The error that made the switch. */
  error: string;
  /** A line for people: "Switched to X: Y is overloaded". */
  content: string;
}

/**
 * The session moved to another cluster worker (additive to Claude Code's set): the worker that ran it was lost (it
 * died, or could not reach Redis for most of its lease) and this one took the session over from its log. A prompt
 * that was running goes on here, and ends in its one result as it would have; the tool calls in
 * `unknown_tool_use_ids` had started and their outcome is unknown (each got a `tool_result` that says so): they were
 * not run again.
 */
export interface WorkerLostMessage extends Envelope {
  type: 'system';
  subtype: 'worker_lost';
  /** A line for people: what happened and what goes on. */
  content: string;
  /** The worker that took the session over. */
  worker: string;
  /** The worker that was lost, when the log names it. */
  previous_worker?: string;
  /** The prompt that was running and goes on (absent when none was). */
  prompt_uuid?: string;
  unknown_tool_use_ids: string[];
}

/** A change of an MCP server's status after start (it crashed, was reconnected or toggled). */
export interface McpServerStatusMessage extends Envelope {
  type: 'system';
  subtype: 'mcp_server_status';
  server_name: string;
  status: McpServerInfo['status'];
  error?: string;
  tools?: string[];
}

/** A tool call that was not allowed to run (why is its `tool_result`'s text, as in Claude Code). */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

/** Token and cost totals of one model, as in `result.modelUsage`. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
  /** Claude Code 2.1.332's further members: thinking tokens, cache writes by lifetime, where the price came from. */
  thinkingTokens?: number;
  cacheCreationEphemeral5mInputTokens?: number;
  cacheCreationEphemeral1hInputTokens?: number;
  canonicalModel?: string;
  provider?: string;
  /** `unknown` for a model without a known price (its cost counts 0). */
  costBasis?: 'list' | 'unknown';
}

/**
 * `result.subagent_stats`: the subagents a prompt started and how they ended, in the shape Claude Code 2.1.332
 * reports. agentpipe runs subagents in the foreground and never refuses one for concurrency or budget, so those
 * counts stay 0; `requested.unset` counts the calls that did not ask for either (all of agentpipe's).
 */
export interface SubagentStats {
  spawned: number;
  requested: { background: number; foreground: number; unset: number };
  started_in_background: number;
  max_depth: number;
  spawned_by_subagents: number;
  completed: number;
  failed: number;
  killed: { parent: number; user: number; system: number };
  refused: { depth_limit: number; concurrency_limit: number; budget: number };
  by_type: Record<string, number>;
}

/** Summed usage of a whole prompt (every field non-null, as in the real CLI). */
export interface ResultUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number };
  server_tool_use: { web_search_requests: number; web_fetch_requests: number };
  service_tier: 'standard' | 'priority' | 'batch';
  inference_geo: string;
  iterations: [];
  output_tokens_details: { thinking_tokens: number };
  speed: 'standard' | 'fast';
  fallback_credit: null;
}

/** Why a prompt ended. */
export type TerminalReason =
  | 'completed'
  | 'max_turns'
  | 'aborted_streaming'
  | 'aborted_tools'
  | 'budget_exhausted'
  | 'model_error'
  | 'api_error'
  | 'hook_stopped'
  | 'prompt_too_long'
  | 'image_error';

/** Error subtypes of `result`. */
export type ResultErrorSubtype =
  'error_during_execution' | 'error_max_turns' | 'error_max_budget_usd' | 'error_max_structured_output_retries';

interface ResultBase extends Envelope {
  type: 'result';
  duration_ms: number;
  duration_api_ms: number;
  num_turns: number;
  stop_reason: string | null;
  total_cost_usd: number;
  usage: ResultUsage;
  modelUsage: Record<string, ModelUsage>;
  permission_denials: PermissionDenial[];
  terminal_reason?: TerminalReason;
  /**
   * Claude Code's fast mode (a faster output speed of some models on its own plans). agentpipe has
   * no fast mode, so it is always `'off'`, the value Claude Code sends while the feature is off.
   */
  fast_mode_state?: 'off' | 'cooldown' | 'on';
  /** Why fast mode is off (`sdk_opt_in_required`, as Claude Code 2.1.332 reports in a headless run). */
  fast_mode_disabled_reason?: 'sdk_opt_in_required';
  /** `modelUsage` of this prompt alone (what was used since the session's last result). */
  model_usage_since_last_result?: Record<string, ModelUsage>;
  /** Prompts still queued behind this one when it ended. */
  queued_turn_count?: number;
  /** This result's index among the session's results (0 for the first). */
  result_index?: number;
  /** Claude Code's safety-classifier stops: agentpipe has no such classifier, always 0. */
  safety_stops?: number;
  /** The subagents the prompt started and how they ended. */
  subagent_stats?: SubagentStats;
  /** With partial messages: the API ids of the main agent's responses that began to stream, in order. */
  begun_message_ids?: string[];
}

/**
 * The last message of a prompt that ended normally, or (as Claude Code ends it) on a model
 * request that failed for good: then `is_error` is true, `result` is the error's text and
 * `api_error_status` its HTTP status (null without a response).
 */
export interface ResultSuccessMessage extends ResultBase {
  subtype: 'success';
  is_error: boolean;
  api_error_status?: number | null;
  /** The API's error type of a failed request (`api_error`, `overloaded_error` …), as Claude Code 2.1.332 adds it. */
  api_error_type?: string;
  result: string;
  structured_output?: unknown;
  /** From the prompt's start to its first assistant message (absent on an API error). */
  ttft_ms?: number;
  /** From the prompt's start to the first response's `message_start` (absent on an API error). */
  ttft_stream_ms?: number;
  /** From the prompt's start to the first model request sent (absent on an API error). */
  time_to_request_ms?: number;
}

/** The last message of a prompt that ended in an error; `errors` says what happened. */
export interface ResultErrorMessage extends ResultBase {
  subtype: ResultErrorSubtype;
  is_error: true;
  errors: string[];
}

/** The last message of every prompt: exactly one per prompt. */
export type ResultMessage = ResultSuccessMessage | ResultErrorMessage;

/** Every message the agent stream yields (what `query()` yields). */
export type AgentMessage =
  | SystemInitMessage
  | AssistantMessage
  | UserMessage
  | StreamEventMessage
  | ToolProgressMessage
  | AuthStatusMessage
  | StatusMessage
  | ThinkingTokensMessage
  | CompactBoundaryMessage
  | HookStartedMessage
  | HookResponseMessage
  | TaskStartedMessage
  | TaskProgressMessage
  | TaskNotificationMessage
  | PermissionDeniedMessage
  | InformationalMessage
  | NotificationMessage
  | ApiRetryMessage
  | ModelFallbackMessage
  | WorkerLostMessage
  | McpServerStatusMessage
  | ResultMessage;

/** The `system` messages of the union. */
export type SystemMessage = Extract<AgentMessage, { type: 'system' }>;
