/**
 * The session events' types (the Copilot-style envelopes SessionEventProjector writes): one data shape per event
 * type, the envelope, and which types are ephemeral.
 */

/** Set on the events of a subagent: the Task call it runs under. */
export interface Nested {
  parentToolCallId?: string;
}

/** One tool call an assistant message requested. */
export interface ToolRequest {
  toolCallId: string;
  name: string;
  arguments: unknown;
  type: 'function';
}

/** The `data` of each session event type. */
export interface SessionEventDataMap {
  'session.start': {
    sessionId: string;
    version: number;
    producer: 'agentpipe';
    agentpipeVersion: string;
    selectedModel: string;
    context: { cwd: string };
    tools: string[];
    permissionMode: string;
  };
  'session.idle': Record<string, never>;
  /** `errorType`: `authentication` or the result's error subtype. */
  'session.error': { errorType: string; message: string };
  'session.usage_info': { tokenLimit: number; currentTokens: number; messagesLength: number };
  /** Not emitted by agentpipe (listed for the Copilot SDK's union). */
  'session.truncation': Record<string, unknown>;
  'session.compaction_start': Record<string, never>;
  'session.compaction_complete': {
    success: boolean;
    trigger: string;
    preCompactionTokens: number;
    postCompactionTokens?: number;
  };
  'user.message': { content: string };
  'assistant.message_start': Nested & { messageId: string };
  'assistant.message_delta': Nested & { messageId: string; deltaContent: string };
  'assistant.message': Nested & { messageId: string; content: string; toolRequests?: ToolRequest[] };
  'assistant.reasoning_delta': Nested & { reasoningId: string; deltaContent: string };
  'assistant.reasoning': Nested & { reasoningId: string; content: string };
  'assistant.usage': {
    model: string;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    cost: number;
    duration: number;
  };
  'tool.execution_start': Nested & { toolCallId: string; toolName: string; arguments: unknown };
  'tool.execution_progress': Nested & { toolCallId: string; progressMessage: string };
  'tool.execution_partial_result': Nested & { toolCallId: string; partialOutput: string };
  'tool.execution_complete': Nested & {
    toolCallId: string;
    success: boolean;
    result?: { content: string };
    error?: { message: string; code: string };
    toolTelemetry: { toolName: string; structuredResult?: unknown };
  };
  'subagent.started': { toolCallId: string; agentName: string; agentDisplayName: string; agentDescription: string };
  'subagent.completed': { toolCallId: string; agentName: string };
  'subagent.failed': { toolCallId: string; agentName: string; error: string };
  'hook.start': { hookInvocationId: string; hookType: string; hookName: string };
  'hook.end': {
    hookInvocationId: string;
    hookType: string;
    hookName: string;
    success: boolean;
    result?: string;
    error?: { message: string };
  };
  abort: { reason: string };
}

/** Every session event type. */
export type SessionEventType = keyof SessionEventDataMap;

/** One session event: the envelope and its type's `data` (a discriminated union on `type`). */
export type SessionEvent = {
  [K in SessionEventType]: {
    id: string;
    /** ISO 8601. */
    timestamp: string;
    parentId: string | null;
    ephemeral: boolean;
    type: K;
    data: SessionEventDataMap[K];
  };
}[SessionEventType];

/**
 * Narrows an event to one type (`events.filter((e) => isEventOf(e, 'tool.execution_complete'))` keeps its data's type).
 */
export function isEventOf<K extends SessionEventType>(
  event: SessionEvent,
  type: K,
): event is Extract<SessionEvent, { type: K }> {
  return event.type === type;
}

/** Emits one event of a type with its data. */
export type Emit = <K extends SessionEventType>(type: K, data: SessionEventDataMap[K]) => void;

export const EPHEMERAL_TYPES: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  'assistant.message_delta',
  'assistant.reasoning_delta',
  'tool.execution_start',
  'tool.execution_progress',
  'tool.execution_partial_result',
  'session.idle',
  'session.usage_info',
  'assistant.usage',
]);
