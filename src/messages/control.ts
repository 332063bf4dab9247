/**
 * The control protocol of Claude Code's SDK mode: requests and responses in both directions,
 * plus the other non-conversation lines of the stream.
 */
import type { PermissionMode, UserContentBlock } from './types.ts';

/** `{"type":"control_request","request_id","request":{subtype,...}}`. */
export interface ControlRequest<R extends { subtype: string } = { subtype: string; [k: string]: unknown }> {
  type: 'control_request';
  request_id: string;
  request: R;
}

/** A successful answer to a control request. */
export interface ControlSuccess {
  subtype: 'success';
  request_id: string;
  response?: Record<string, unknown>;
}
/** A failed answer to a control request. */
export interface ControlError {
  subtype: 'error';
  request_id: string;
  error: string;
}
/** `{"type":"control_response","response":{...}}`. */
export interface ControlResponse {
  type: 'control_response';
  response: ControlSuccess | ControlError;
}
/** Cancels a pending request of the other side. */
export interface ControlCancelRequest {
  type: 'control_cancel_request';
  request_id: string;
}
/** Heartbeat, both ways; ignored by both SDKs. */
export interface KeepAlive {
  type: 'keep_alive';
}

/** A user message as read from stream-json input. */
export interface InputUserMessage {
  type: 'user';
  message: { role: 'user'; content: string | UserContentBlock[] };
  parent_tool_use_id?: string | null;
  session_id?: string;
  uuid?: string;
  priority?: 'now' | 'next' | 'later';
  /**
   * The W3C trace context this prompt runs under (telemetry on): its `invoke_agent` span becomes a child of it, in
   * place of the session's TRACEPARENT. The ACP server fills it from session/prompt's `_meta`.
   */
  _meta?: { traceparent?: string; tracestate?: string };
}

/** Any line agentpipe accepts on stream-json input. */
export type InputMessage = InputUserMessage | ControlRequest | ControlResponse | ControlCancelRequest | KeepAlive;

/**
 * A transcript line for the official SDK's session store (`--session-mirror`): `filePath` names the session as Claude
 * Code's would.
 */
export interface TranscriptMirror {
  type: 'transcript_mirror';
  filePath: string;
  entries: Array<Record<string, unknown>>;
}

/** Any non-conversation line agentpipe writes on its output. */
export type ControlOutput = ControlRequest | ControlResponse | ControlCancelRequest | KeepAlive | TranscriptMirror;

/** One hook matcher of the `initialize` request: the client runs the callbacks (the SDK's `SDKHookCallbackMatcher`). */
export interface SDKHookCallbackMatcher {
  matcher?: string;
  hookCallbackIds: string[];
  timeout?: number;
  /**
   * What a failure of these callbacks does (the client answered the hook_callback request with an error, or with an
   * answer that fails validation): `"continue"` (default) reports it; `"block"` blocks the action the event guards.
   */
  onFailure?: 'continue' | 'block';
}

/** The `initialize` request of the official SDK. */
export interface InitializeRequest {
  subtype: 'initialize';
  hooks?: Record<string, SDKHookCallbackMatcher[]>;
  sdkMcpServers?: string[];
  jsonSchema?: Record<string, unknown>;
  systemPrompt?: string[] | string;
  appendSystemPrompt?: string;
  agents?: Record<string, { description: string; prompt: string; tools?: string[]; model?: string }>;
}

/**
 * How the host says the user decided (the SDK's `PermissionDecisionClassification`): once, always, or no. It is what
 * the call's `tool_result_meta` names as the decision's source.
 */
export type PermissionDecisionClassification = 'user_temporary' | 'user_permanent' | 'user_reject';

/** The answer of `can_use_tool`. */
export type PermissionResult =
  | {
      behavior: 'allow';
      updatedInput?: Record<string, unknown>;
      toolUseID?: string;
      decisionClassification?: PermissionDecisionClassification;
    }
  | {
      behavior: 'deny';
      message: string;
      interrupt?: boolean;
      toolUseID?: string;
      decisionClassification?: PermissionDecisionClassification;
    };

/** A change of permissions a prompt offers instead of a one-off answer (the SDK's `PermissionUpdate`). */
export type PermissionUpdate =
  | {
      type: 'addRules';
      rules: Array<{ toolName: string; ruleContent?: string }>;
      behavior: 'allow' | 'deny' | 'ask';
      destination: 'userSettings' | 'projectSettings' | 'localSettings' | 'session' | 'cliArg';
    }
  | { type: 'setMode'; mode: PermissionMode; destination: 'session' }
  | { type: 'addDirectories'; directories: string[]; destination: 'session' };

/** Requests agentpipe sends to the client. */
export type OutboundRequest =
  | {
      subtype: 'can_use_tool';
      tool_name: string;
      input: Record<string, unknown>;
      tool_use_id: string;
      permission_suggestions: unknown[];
      /** What the prompt shows (Claude Code's fields): the tool's name, the call in one line, why it asks. */
      display_name?: string;
      description?: string;
      decision_reason?: string;
      decision_reason_type?: string;
      /** The path the prompt is about (a Bash line's first written path). */
      blocked_path?: string;
      agent_id?: string;
    }
  | { subtype: 'hook_callback'; callback_id: string; input: Record<string, unknown>; tool_use_id?: string }
  | { subtype: 'mcp_message'; server_name: string; message: Record<string, unknown> };

/** Permission mode change request. */
export interface SetPermissionModeRequest {
  subtype: 'set_permission_mode';
  mode: PermissionMode;
}
