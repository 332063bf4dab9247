/** Types of the library face: what `query()` takes and returns. */
import type { AgentMessage, McpServerInfo, PermissionMode, UserContentBlock } from '../messages/types.ts';
import type { SessionOptions } from '../session/options.ts';

/** A user message of a streaming-input prompt (the official SDK's `SDKUserMessage`). */
export interface PromptMessage {
  type: 'user';
  message: { role: 'user'; content: string | UserContentBlock[] };
  parent_tool_use_id?: string | null;
  session_id?: string;
  uuid?: string;
  /** The W3C trace context this prompt runs under, with telemetry on (see docs/telemetry.md). */
  _meta?: { traceparent?: string; tracestate?: string };
}

/** Options of `query()`: the session options plus how to run it. */
export interface QueryOptions extends SessionOptions {
  /** Aborting it interrupts the running prompt and ends the input: the stream ends after its `result`. */
  abortController?: AbortController;
  /**
   * Path of agentpipe's CLI (`bin/agentpipe.js`) to run the session in a child process over
   * the stream-json protocol instead of in this process.
   */
  executable?: string;
  /** Arguments for the runtime running `executable` (default: this Node with `executable` as script). */
  executableArgs?: string[];
  /** Diagnostics (what the CLI writes on stderr). */
  stderr?: (line: string) => void;
  /**
   * Yield the echo of each prompt (a `user` message with `isReplay`, after the prompt's
   * `system/init`), as the CLI's `--replay-user-messages` prints it. Off by default, as in the
   * official SDK, which yields it only when its CLI is given that flag.
   */
  replayUserMessages?: boolean;
  /**
   * Run the session on a worker pool (`agentpipe worker --redis <url>`) instead of in this process,
   * as a client of `serve --redis` would; `resume` then names a session of the cluster.
   */
  cluster?: ClusterOptions;
  /**
   * Run the session on an `agentpipe serve` over its WebSocket instead of in this process: the server's model, folder
   * and flags apply (the options here that shape a session do not); `canUseTool` is asked when the server was started
   * with `--permission-prompt-tool stdio`.
   */
  connect?: ConnectOptions;
}

/** Which `serve` a remote session runs on. */
export interface ConnectOptions {
  /** The server's URL, as `agentpipe serve` printed it: `ws://host:port/`, maybe with `?token=`. */
  url: string;
  /** The server's token (default: the URL's `?token=`), sent as `Authorization: Bearer`. */
  token?: string;
}

/** Where `query()` runs a session of the cluster. */
export interface ClusterOptions {
  /** The cluster's Redis: `redis://[:password@]host:port[/db]` (or `rediss://`). */
  redis: string;
  /** The stream ends with an error result when no worker took the session within this long. Default 30000 ms. */
  startTimeoutMs?: number;
}

/** A model the session can switch to. */
export interface ModelInfo {
  value: string;
  displayName: string;
  description: string;
}

/** The stream of a query with its control methods. */
export interface Query extends AsyncGenerator<AgentMessage, void> {
  /** Interrupts the running prompt; it ends with its `result`. */
  interrupt(): Promise<void>;
  /** Model for the next requests (`undefined`: the one the session started with). */
  setModel(model?: string): Promise<void>;
  setPermissionMode(mode: PermissionMode): Promise<void>;
  supportedModels(): Promise<ModelInfo[]>;
  mcpServerStatus(): Promise<McpServerInfo[]>;
  /** Stops everything now (no more messages). */
  close(): void;
}

/** What runs a session: in this process or in a child CLI. */
export interface Engine {
  readonly messages: AsyncIterable<AgentMessage>;
  /** Sends a control request (`interrupt`, `set_model`, ...) and returns its response payload. */
  control(request: { subtype: string; [key: string]: unknown }): Promise<Record<string, unknown> | undefined>;
  /** Ends the input: queued prompts finish, then the stream ends. */
  endInput(): void;
  /** Stops at once. */
  close(): void;
}
