/**
 * The harness contract: another agent CLI (Claude Code, Codex, Gemini CLI, Qwen Code, any ACP
 * agent) run behind agentpipe's message stream. A harness replaces the agent loop for one prompt:
 * it starts (or reuses) the wrapped agent, translates what it prints into the message union,
 * emits those messages through the turn, and returns how the prompt ended. The session does the
 * rest as for its own loop: the transcript, the faces, the one `result`.
 */
import type { SandboxConfig } from '../sandbox/config.ts';
import type {
  AgentMessage,
  PermissionMode,
  SystemInitMessage,
  TerminalReason,
  UserContentBlock,
} from '../messages/types.ts';
import type { PermissionResult } from '../messages/control.ts';
import type { UsageTracker } from '../agent/usage.ts';
import type { LoopOutcome } from '../agent/loop.ts';

/** The harness names accepted by `--harness`: the wrapped agents; `agentpipe` is agentpipe's own loop. */
export const HARNESS_NAMES = ['agentpipe', 'claude', 'codex', 'gemini', 'qwen', 'acp'] as const;

/** A harness: one of `HARNESS_NAMES`. */
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** How a wrapped agent is started, from the session's options. */
export interface HarnessConfig {
  name: Exclude<HarnessName, 'agentpipe'>;
  /** The executable and its leading arguments (`--harness-command`, parsed); default: the CLI on PATH. */
  command: string[];
  cwd: string;
  /** The environment of the wrapped CLI (agentpipe's secrets removed, the CLI's own key passed on). */
  env: Record<string, string>;
  /** The session's OS sandbox: the CLI runs in its harness profile (absent: unconfined). */
  sandbox?: SandboxConfig;
  model?: string;
  /** `--base-url`: the CLI's own base URL setting. */
  baseUrl?: string;
  /** `--api-key`: the CLI's own key variable. */
  apiKey?: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  permissionMode: PermissionMode;
  allowedTools: string[];
  disallowedTools: string[];
  maxTurns?: number;
  includePartialMessages: boolean;
  /**
   * `tool_progress` heartbeats of a wrapped agent's tool calls that send none of their own (the session's threshold and
   * interval, ms).
   */
  progress?: { thresholdMs: number; intervalMs: number };
  /**
   * A wrapped CLI silent on stdout this long (ms) is stopped and the prompt fails (AGENTPIPE_HARNESS_IDLE_MS, default
   * 15 min).
   */
  idleMs?: number;
  /**
   * false: the working folder is not trusted (`agentpipe trust`), so the wrapped CLI must not apply the folder's own
   * configuration either (Claude Code: `.claude/settings*.json` hooks and rules, `.claude/agents`).
   */
  projectSettings?: boolean;
  /** The wrapped agent's own session id to resume (from the transcript of the agentpipe session). */
  resumeNativeId?: string;
  /** Diagnostics (stderr of the CLI, the session's log in the library). */
  warn: (line: string) => void;
}

/** What the session gives a harness for one prompt. */
export interface HarnessTurn {
  prompt: string | UserContentBlock[];
  signal: AbortSignal;
  /**
   * The W3C `traceparent` of the prompt's span (telemetry on): a wrapped CLI started for the prompt gets it as
   * TRACEPARENT (Claude Code's own spans then nest under it), an ACP agent in the prompt request's `_meta`.
   */
  traceparent?: string;
  /** Emits one message of the stream (recorded in the transcript, seen by every face). */
  emit: (message: AgentMessage) => Promise<void>;
  /** Token counts and cost of the prompt (the result reports them). */
  usage: UsageTracker;
  /** The session's `system/init`, with what the wrapped agent reported instead of agentpipe's own values. */
  init: (fields: HarnessInit) => SystemInitMessage;
  /** Asks the session's client about a tool call the wrapped agent wants to make (canUseTool, `can_use_tool`). */
  askPermission: (
    toolName: string,
    input: Record<string, unknown>,
    toolUseId: string,
    signal: AbortSignal,
    /** What the wrapped agent's own prompt shows (Claude Code's can_use_tool fields), passed on to the client. */
    shown?: PermissionPromptDetails,
  ) => Promise<PermissionResult>;
}

/** The details of a permission prompt (Claude Code's can_use_tool fields, camelCased as canUseTool gets them). */
export interface PermissionPromptDetails {
  suggestions?: unknown[];
  displayName?: string;
  description?: string;
  decisionReason?: string;
  decisionReasonType?: string;
  blockedPath?: string;
}

/** What the wrapped agent said about itself at its start. */
export interface HarnessInit {
  model?: string;
  tools?: string[];
  cwd?: string;
  permissionMode?: PermissionMode;
  /** The wrapped agent's own session (thread) id: kept so `--resume <agentpipe id>` resumes it too. */
  nativeSessionId?: string;
}

/** How a prompt ended; `numTurns` counts as Claude Code does (the prompt plus each user message). */
export interface HarnessOutcome extends LoopOutcome {
  terminalReason: TerminalReason;
}

/** A wrapped agent. */
export interface Harness {
  readonly name: Exclude<HarnessName, 'agentpipe'>;
  /** The wrapped agent's own session id, once known. */
  readonly nativeSessionId: string | undefined;
  /**
   * The client changed the model or the permission mode (`set_model`, `set_permission_mode`): applied from the next
   * request or prompt.
   */
  configure(change: { model?: string; permissionMode?: PermissionMode }): void;
  /** Runs one prompt to its end; never throws for anything the wrapped agent does. */
  run(turn: HarnessTurn): Promise<HarnessOutcome>;
  /**
   * Adds a user message to the running prompt (the wrapped agent's own steering: codex's turn/steer); resolves false
   * when there is none to steer or the agent cannot. The running prompt's `result` covers it.
   */
  steer?(prompt: string | UserContentBlock[]): Promise<boolean>;
  /** Stops the wrapped agent (SIGTERM, then SIGKILL after a grace period). */
  close(): Promise<void>;
}
