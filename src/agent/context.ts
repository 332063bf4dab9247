/** What the agent loop runs with. The session owns it and may change fields between requests. */
import type { AgentMessage, MessageParam, PermissionMode } from '../messages/types.ts';
import type { UsageTracker } from './usage.ts';
import type { PermissionResult } from '../messages/control.ts';
import type { EffortLevel, ModelProvider, ThinkingConfig } from '../model/types.ts';
import type { PermissionRule } from '../tools/permissions.ts';
import type { ToolState } from '../tools/state.ts';
import type { Tool } from '../tools/types.ts';
import type { HookRunner } from '../tools/hooks/types.ts';
import type { RunGuard } from './run-guard.ts';
import type { SandboxConfig } from '../sandbox/config.ts';
import type { ToolCalls } from '../tools/tape-calls.ts';
import type { AgentSpan } from '../telemetry/types.ts';
import type { OutcomePolicy } from './outcome-policy.ts';

/** The library's permission callback (also backs `--permission-prompt-tool stdio`). */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: {
    signal: AbortSignal;
    toolUseId: string;
    suggestions: unknown[];
    parentToolUseId: string | null;
    /** What the prompt shows, as Claude Code sends it in `can_use_tool` (see tools/permission-prompt.ts). */
    displayName?: string;
    description?: string;
    decisionReason?: string;
    decisionReasonType?: string;
    /** The path the prompt is about (Claude Code's `blocked_path`: a Bash line's first written path). */
    blockedPath?: string;
  },
) => Promise<PermissionResult>;

export interface AgentContext {
  provider: ModelProvider;
  /** Diagnostics of the run (the session's log: stderr for the CLI, the caller's `stderr` option in the library). */
  warn: (line: string) => void;
  /** Model id for the next request (`set_model` changes it). */
  model: string;
  system: string;
  /**
   * The output style in effect (session/output-styles.ts): what the main agent's requests add to `system`, whatever
   * the client did to the system prompt. Subagents keep their own prompts.
   */
  outputStyle?: string;
  tools: Tool[];
  cwd: string;
  sessionId: string;
  /** The Task call this agent runs under (null for the main agent). */
  parentToolUseId: string | null;
  /** The subagent this context runs (absent for the main agent). */
  agent?: { id: string; type: string };
  maxTurns?: number;
  maxBudgetUsd?: number;
  maxTokens: number;
  thinkingBudgetTokens?: number;
  /** Thinking mode and reasoning effort of the requests; beta names for the Anthropic API. */
  thinking?: ThinkingConfig;
  effort?: EffortLevel;
  betas?: string[];
  /**
   * What Claude Code's default request reads besides the flags (model/claude-code-request.ts, when `policy` asks
   * for it): the settings' `alwaysThinkingEnabled`, and the environment (`MAX_THINKING_TOKENS`,
   * `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS`; default: the process's).
   */
  claudeRequest?: {
    alwaysThinkingEnabled?: boolean;
    env?: Record<string, string | undefined>;
    /** The user gave `maxTokens`: it wins over Claude Code's `max_tokens` for the model. */
    maxTokensChosen?: boolean;
  };
  /** Models tried in order when a request fails with overloaded, model_not_found or server errors. */
  fallbackModels?: string[];
  /** Debug lines (`--debug`): a category (api, tools, control, hooks) and the text. */
  debug?: (category: string, line: string) => void;
  /** Rules and mode; `directories`: extra working folders (`--add-dir`) beside the cwd. */
  permissions: { mode: PermissionMode; allow: PermissionRule[]; deny: PermissionRule[]; directories?: string[] };
  canUseTool?: CanUseTool;
  /** The hook dispatcher (settings commands, library callbacks, SDK client callbacks). */
  hooks?: HookRunner;
  /** The OS sandbox every command of the session runs in (absent: a default one on the cwd). */
  sandbox?: SandboxConfig;
  includePartialMessages: boolean;
  /**
   * Emit `system/status` `requesting` before each model request of the main agent when partial
   * messages stream over stream-json input. (Recorded Claude Code runs without partial messages
   * show no such status: see ../shared/reference/traces.)
   */
  announceRequests?: boolean;
  /** Each tool call, for a tape: a permitted one it records or answers, a denied one it records (tapes). */
  toolCalls?: ToolCalls;
  /** What the session's tools remember between calls. */
  toolState: ToolState;
  /** A tool running longer than this gets `tool_progress` heartbeats. */
  progressThresholdMs: number;
  progressIntervalMs: number;
  /** Retries of a failed model request (which ones: `policy.retries`). */
  maxRetries: number;
  /** How failed requests, cut or empty replies, a spent budget and calls' defaults are met (outcome-policy.ts). */
  policy: OutcomePolicy;
  /** Automatic compaction, checked before each model request (the session sets it). */
  compaction?: {
    beforeRequest(
      ctx: AgentContext,
      history: MessageParam[],
      run: { signal: AbortSignal; usage: UsageTracker },
    ): Promise<void>;
  };
  /** Checked before every model request and tool call (a cluster run's lease and tool journal); absent locally. */
  guard?: RunGuard;
  /**
   * The span of the agent this context runs (the prompt's `invoke_agent`, a subagent's own); absent when telemetry
   * is off. Model requests and tool calls start their spans under it.
   */
  span?: AgentSpan;
  /** Sends a message down the pipeline; resolves when the queue has room. */
  emit: (message: AgentMessage) => Promise<void> | undefined;
}

const defaults = new WeakMap<AgentContext, SandboxConfig>();

/** The sandbox of a context: the session's, or (a context built by hand) a default one on its folders. */
export function sandboxOf(ctx: AgentContext): SandboxConfig {
  if (ctx.sandbox) return ctx.sandbox;
  let config = defaults.get(ctx);
  if (!config) {
    config = { layers: [], cwd: ctx.cwd, directories: ctx.permissions.directories ?? [], warn: ctx.warn };
    defaults.set(ctx, config);
  }
  return config;
}
