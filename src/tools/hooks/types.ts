/**
 * Hook types, shaped like Claude Code's and the official Agent SDK's: events, the JSON a hook
 * gets (`HookInput`) and may answer (`HookOutput`), and library callbacks with matchers.
 */
import type { AgentMessage, PermissionMode } from '../../messages/types.ts';

/** The hook events agentpipe fires. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'SessionStart',
  'SessionEnd',
  'PreCompact',
  'Notification',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** What every hook gets on stdin (or as its first argument), plus the event's own fields. */
export interface HookInput {
  hook_event_name: HookEvent;
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode?: string;
  agent_id?: string;
  agent_type?: string;
  /**
   * The effort the session's requests ask for, on a tool's hooks (PreToolUse, PostToolUse, PostToolUseFailure), as
   * Claude Code 2.1.332 sends it: absent when the requests name none.
   */
  effort?: { level: string };
  [field: string]: unknown;
}

/** What a hook may answer (Claude Code's `SyncHookJSONOutput`). */
export interface HookOutput {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  decision?: 'approve' | 'block';
  reason?: string;
  systemMessage?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    permissionDecision?: 'allow' | 'deny' | 'ask' | 'defer';
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
    additionalContext?: string;
    updatedToolOutput?: unknown;
  };
  [field: string]: unknown;
}

/** A library hook callback (the official SDK's `HookCallback`). */
export type HookCallback = (
  input: HookInput,
  toolUseId: string | undefined,
  options: { signal: AbortSignal },
) => Promise<HookOutput | undefined | void>;

/**
 * What a hook's failure does (it throws, times out, cannot start, exits with a code other than 0 or 2, or answers
 * output that fails validation): `'continue'` (the default) reports it and the action goes ahead; `'block'` counts it
 * as exit code 2, so the action the event guards (a tool call, a prompt) is blocked. Ignored on Stop and SubagentStop.
 */
export type HookOnFailure = 'continue' | 'block';

/** Library hooks for one event: `matcher` is a regex on the tool name ('' or '*' for all). */
export interface HookCallbackMatcher {
  matcher?: string;
  hooks: HookCallback[];
  /** Seconds. */ timeout?: number;
  onFailure?: HookOnFailure;
}

/** Library hooks option: `{PreToolUse: [{matcher: 'Bash', hooks: [async (input) => ({...})]}]}`. */
export type HookCallbacks = Partial<Record<HookEvent, HookCallbackMatcher[]>>;

/** One executed hook, as reported in a `hook_response` message. */
export interface HookRun {
  /** The hook's JSON answer as it came (outside data: the dispatcher checks it is a HookOutput). */
  output?: unknown;
  stdout: string;
  stderr: string;
  exitCode?: number;
  outcome: 'success' | 'error' | 'cancelled';
  /** Exit code 2 of a command hook: block, stderr is the reason. */
  blocked?: string;
  /** The hook ran past its timeout (outcome `error`). */
  timedOut?: boolean;
  /** `blocked` because the hook failed and its `onFailure` is `"block"`. */
  failed?: boolean;
}

/** One runnable hook of any source (command, callback, SDK client). */
export interface HookHandler {
  /** Shown in `hook_response.hook_name` after the event name. */
  label: string;
  timeoutMs: number;
  run(input: HookInput, toolUseId: string | undefined, signal: AbortSignal): Promise<HookRun>;
}

/** What the hooks of one event decided together. */
export interface HookVerdict {
  /** Any hook ran. */
  ran: boolean;
  /** `decision: "block"`, exit code 2 or `permissionDecision: "deny"`: the reason. */
  block?: string;
  /** The label of the hook that blocked (a command hook's command). */
  blockedBy?: string;
  /** What the hook that blocked with exit code 2 wrote on stderr, as it wrote it. */
  blockedStderr?: string;
  /** A hook failed (an error outcome that blocked nothing). */
  failed?: boolean;
  /** The block came from a hook that failed with `onFailure: "block"`: why it failed, and what it wrote on stderr. */
  failure?: { reason: string; stderr: string };
  permission?: 'allow' | 'deny' | 'ask';
  permissionReason?: string;
  /** The `ask` came from a hook the SDK client registered (another hook's `ask` replaces its reason). */
  askByHost?: boolean;
  updatedInput?: Record<string, unknown>;
  /** `continue: false`: stop the whole prompt with this reason. */
  stop?: string;
  additionalContext: string[];
  updatedToolOutput?: unknown;
}

/** Where and for whom the hooks of one event run. */
export interface HookCall {
  sessionId: string;
  cwd: string;
  permissionMode: PermissionMode;
  signal: AbortSignal;
  emit(message: AgentMessage): Promise<void> | undefined;
  /** Matched against the matchers (tool name, SessionStart source, agent type ...). */
  matchValue?: string;
  toolUseId?: string;
  agent?: { id: string; type: string };
}

/** The hook dispatcher as the agent loop sees it. */
export interface HookRunner {
  has(event: HookEvent): boolean;
  run(event: HookEvent, fields: Record<string, unknown>, call: HookCall): Promise<HookVerdict>;
}
