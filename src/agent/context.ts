/** What the agent loop runs with. The session owns it and may change fields between requests. */
import type { AgentMessage, PermissionMode } from '../messages/types.ts';
import type { PermissionResult } from '../messages/control.ts';
import type { ModelProvider } from '../model/types.ts';
import type { PermissionRule } from '../tools/permissions.ts';
import type { Tool } from '../tools/types.ts';

/** The library's permission callback (also backs `--permission-prompt-tool stdio`). */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: { signal: AbortSignal; toolUseId: string; suggestions: unknown[]; parentToolUseId: string | null },
) => Promise<PermissionResult>;

/** What a PreToolUse hook decided. */
export interface PreToolUseDecision { decision?: 'allow' | 'deny' | 'ask'; reason?: string; updatedInput?: Record<string, unknown> }

/** Hook points of the loop; the hooks layer fills them. */
export interface AgentHooks {
  preToolUse?(call: { toolName: string; input: Record<string, unknown>; toolUseId: string; signal: AbortSignal; parentToolUseId: string | null }): Promise<PreToolUseDecision | undefined>;
}

export interface AgentContext {
  provider: ModelProvider;
  /** Model id for the next request (`set_model` changes it). */
  model: string;
  system: string;
  tools: Tool[];
  cwd: string;
  sessionId: string;
  /** The Task call this agent runs under (null for the main agent). */
  parentToolUseId: string | null;
  maxTurns?: number;
  maxBudgetUsd?: number;
  maxTokens: number;
  thinkingBudgetTokens?: number;
  permissions: { mode: PermissionMode; allow: PermissionRule[]; deny: PermissionRule[] };
  canUseTool?: CanUseTool;
  hooks?: AgentHooks;
  includePartialMessages: boolean;
  /** Per-session scratch state of tools. */
  toolState: Map<string, unknown>;
  /** A tool running longer than this gets `tool_progress` heartbeats. */
  progressThresholdMs: number;
  progressIntervalMs: number;
  /** Retries of a failed model request (429, 5xx, cut connection). */
  maxRetries: number;
  /** Sends a message down the pipeline; resolves when the queue has room. */
  emit(message: AgentMessage): Promise<void>;
}
