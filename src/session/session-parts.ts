/** What a Session is built from (session/create.ts builds the parts, session.ts puts them together). */
import type { AgentMessage } from '../messages/types.ts';
import type { ModelProvider } from '../model/types.ts';
import type { Harness } from '../harness/types.ts';
import type { SandboxConfig } from '../sandbox/config.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';
import type { Tool } from '../tools/types.ts';
import type { ParentContext, Telemetry } from '../telemetry/types.ts';
import type { DebugLog } from './debug-log.ts';
import type { SessionOptions } from './options.ts';
import type { SessionStyles } from './output-styles.ts';
import type { SessionStart } from './resume.ts';
import type { permissionRules } from './session-start.ts';
import type { SettingSource, SettingsLayer } from './setting-sources.ts';

/**
 * Sees each message of the session's stream before the transcript and the client do, and the session's end: a tape
 * (`record`, `replay`; session/tape.ts).
 */
export interface SessionTap {
  /** The message as the stream carries it on (a replay gives it the recorded ids and clock values). */
  message(message: AgentMessage): AgentMessage;
  /** The uuid of a prompt that came without one (a replay: the recorded prompt's), or undefined. */
  promptUuid(): string | undefined;
  /** The session ended (its wrapped agent, hooks and MCP servers are done). */
  close(): Promise<void>;
}

/**
 * What a Session is built from: everything read and started before it exists (session/create.ts, `createSession`).
 * The constructor only puts the parts together: it reads no file and starts nothing.
 */
export interface SessionParts {
  options: SessionOptions & { sessionId: string };
  provider: ModelProvider;
  model: string;
  /** Where the stream goes after the transcript. */
  emit: (m: AgentMessage) => Promise<void> | undefined;
  /** The session's diagnostics (warnings); the CLI's go to stderr, the library's to the caller's `stderr` option. */
  log: (line: string) => void;
  cwd: string;
  settings: { layers: SettingsLayer[]; sources: readonly SettingSource[] };
  /** `allowedTools` / `disallowedTools`, and the rules of the flags and the settings layers (permissionRules). */
  cliRules: { allow: string[]; deny: string[] };
  rules: ReturnType<typeof permissionRules>;
  tools: Tool[];
  directories: string[];
  sandbox: SandboxConfig;
  debug: DebugLog | undefined;
  /** The MCP servers to start (the options', then the settings' whose names are new). */
  mcpServers: Record<string, McpServerConfig>;
  outputStyles: SessionStyles;
  /** Where the session starts (fresh, resumed, forked) and its transcript: session/resume.ts. */
  start?: SessionStart;
  /** The wrapped agent that runs the prompts instead of agentpipe's loop (`harness`). */
  harness?: Harness;
  /** A tape's view of the stream (`record`, `replay`). */
  tap?: SessionTap;
  /** Telemetry of the session's prompts (absent when off), and the parent of each prompt's span. */
  telemetry?: { telemetry: Telemetry; traceParent?: ParentContext };
}
