/**
 * The tape: one session recorded as JSON lines, readable by people. The first line is the header (`type: "tape"`,
 * `version: 1`: the one version field); every other line has a `type`:
 *
 * | type | holds |
 * |---|---|
 * | `files` | the working folder's files at the start (`at: "start"`) and at the end (`at: "end"`) |
 * | `prompt` | each prompt the session ran, with its uuid |
 * | `model_request` | a model request in canonical form (written when it is made) |
 * | `model_response` | its answer as streamed: the events with their time (ms after the request), or the error |
 * | `web_search` | a server-side web search (the WebSearch tool) and its answer |
 * | `tool` | a tool call: its input and result |
 * | `permission` | a permission prompt's answer (`canUseTool`, `can_use_tool`) |
 * | `hook` | the hooks of one event: their verdict and the messages they emitted |
 * | `http` | a wrapped CLI's exchange with its API (the recording proxy): the request's body, the response as the |
 * |        | wire had it (its chunks with their times) |
 * | `message` | the session's stream, message by message (ids and clock values included) |
 *
 * No API key or auth header is ever written (the writer also scrubs the values of the key variables it knows).
 * This file holds the types only; `schema.ts` checks lines as they are read.
 */
import type { AgentMessage, MessageParam, StreamEvent, UserContentBlock } from '../../messages/types.ts';
import type { PermissionResult } from '../../messages/control.ts';
import type { z } from 'zod';
import type { EffortLevel, ThinkingConfig, ToolSpec } from '../types.ts';
import type { TapeSessionSchema } from './schema.ts';

/** The version this agentpipe writes and reads. */
export const TAPE_VERSION = 1;

/**
 * The session options a tape keeps, so `agentpipe replay` can run the session again (secrets never among them): the
 * type of the header's schema (`TapeSessionSchema` in schema.ts, the one definition; session/tape-options.ts says
 * which of them are the session's options as they are).
 */
export type TapeSession = z.output<typeof TapeSessionSchema>;

/** The first line. */
export interface TapeHeader {
  type: 'tape';
  version: typeof TAPE_VERSION;
  /** The agentpipe that recorded it. */
  agentpipe: string;
  /** When the recording started (ISO). */
  created: string;
  /** The working folder (absolute) and its real path: a replay elsewhere maps them to its own. */
  cwd: string;
  realCwd?: string;
  /** Other folders the run's requests may name (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR), mapped alike. */
  places?: Record<string, string>;
  /** The day and platform the run saw (they are in system prompts): a replay maps its own to these. */
  date: string;
  platform: string;
  session_id: string;
  session: TapeSession;
}

/** One file of a snapshot: its text (UTF-8), or its bytes (base64), or a symbolic link's target. */
export interface TapeFile {
  path: string;
  text?: string;
  base64?: string;
  link?: string;
  /** Permission bits, when not 0644. */
  mode?: number;
}

export interface FilesLine {
  type: 'files';
  at: 'start' | 'end';
  files: TapeFile[];
  /** Files left out (too large, or past the snapshot's size limit). */
  skipped?: string[];
}

export interface PromptLine {
  type: 'prompt';
  uuid: string;
  content: string | UserContentBlock[];
}

/** A model request as the provider received it, without the abort signal; `thinking` merged with its budget. */
export interface CanonicalRequest {
  model: string;
  system: string;
  tools: ToolSpec[];
  messages: MessageParam[];
  max_tokens: number;
  thinking?: ThinkingConfig;
  effort?: EffortLevel;
  betas?: string[];
}

/** A failure as the provider reported it. */
export interface TapeError {
  message: string;
  /** A `ModelErrorKind` (`rate_limit`, `server_error` ...); `unknown` for anything else thrown. */
  kind: string;
  status?: number;
  retry_after_ms?: number;
}

export interface ModelRequestLine {
  type: 'model_request';
  /** Numbers the requests of the tape in the order they were made. */
  n: number;
  request: CanonicalRequest;
}

/** One event and when it came: milliseconds after the request was made. */
export type TimedEvent = [ms: number, event: StreamEvent];

export interface ModelResponseLine {
  type: 'model_response';
  n: number;
  events: TimedEvent[];
  error?: TapeError;
  /** The client stopped reading (an interrupt, a stall): the events are all there was. */
  aborted?: true;
}

export interface WebSearchLine {
  type: 'web_search';
  request: { model: string; query: string; allowed_domains?: string[]; blocked_domains?: string[] };
  blocks?: unknown[];
  error?: TapeError;
}

export interface ToolLine {
  type: 'tool';
  tool_use_id: string;
  name: string;
  input: Record<string, unknown>;
  /** The permission decision: the call ran (`allow`), or it was denied and `result` is what the model was told. */
  decision?: 'allow' | 'deny';
  result: {
    content: unknown;
    is_error?: boolean;
    data?: unknown;
    denied?: string;
    structured_output?: unknown;
    /** The call threw (the loop turned the message into the error result). */
    thrown?: string;
  };
}

export interface PermissionLine {
  type: 'permission';
  tool_use_id: string;
  name: string;
  answer: PermissionResult;
}

/** What the hooks of one event decided together (the fields of tools/hooks' `HookVerdict`). */
export interface TapeHookVerdict {
  ran: boolean;
  block?: string;
  blockedBy?: string;
  permission?: 'allow' | 'deny' | 'ask';
  permissionReason?: string;
  updatedInput?: Record<string, unknown>;
  stop?: string;
  additionalContext: string[];
  updatedToolOutput?: unknown;
}

export interface HookLine {
  type: 'hook';
  event: string;
  tool_use_id?: string;
  match?: string;
  verdict: TapeHookVerdict;
  /** What the hooks emitted (`hook_started`, `hook_response`, ...). */
  messages: AgentMessage[];
}

/** The wire formats the recording proxy knows. */
export type HttpApi = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini' | 'other';

/** One chunk of a response body and when it came (ms after the request). */
export type TimedChunk = [ms: number, chunk: string];

export interface HttpLine {
  type: 'http';
  n: number;
  api: HttpApi;
  method: string;
  /** The path under the API's base URL, with its query. */
  path: string;
  /** The body: parsed JSON, or text. No headers are kept. */
  request: unknown;
  status: number;
  content_type?: string;
  chunks: TimedChunk[];
  /** The chunks are base64 (the body was not UTF-8). */
  encoding?: 'base64';
  /** The upstream could not be reached or the exchange broke off. */
  error?: string;
}

export interface MessageLine {
  type: 'message';
  message: AgentMessage;
}

export type TapeLine =
  | FilesLine
  | PromptLine
  | ModelRequestLine
  | ModelResponseLine
  | WebSearchLine
  | ToolLine
  | PermissionLine
  | HookLine
  | HttpLine
  | MessageLine;

/** A tape read back. */
export interface Tape {
  file: string;
  header: TapeHeader;
  lines: TapeLine[];
}

/** How a replay treats tool calls: run them for real (default), or answer them from the tape. */
export type ReplayTools = 'run' | 'tape';
