/**
 * ACP session update shapes (Agent Client Protocol v1 `SessionUpdate`, the subset the
 * projection produces), as the evolve SDK's `OutputEvent` documents them.
 */

export type ContentBlock =
  { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string; uri?: string };

export type ToolKind =
  'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';
export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';
export interface ToolCallLocation {
  path: string;
  line?: number;
}
export type ToolCallContent =
  { type: 'content'; content: ContentBlock } | { type: 'diff'; path: string; oldText: string | null; newText: string };

export interface PlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority: 'high' | 'medium' | 'low';
}

export interface AgentMessageChunk {
  sessionUpdate: 'agent_message_chunk';
  content: ContentBlock;
}
export interface AgentThoughtChunk {
  sessionUpdate: 'agent_thought_chunk';
  content: ContentBlock;
}
export interface UserMessageChunk {
  sessionUpdate: 'user_message_chunk';
  content: ContentBlock;
}
export interface ToolCall {
  sessionUpdate: 'tool_call';
  toolCallId: string;
  title: string;
  kind: ToolKind;
  status: ToolCallStatus;
  rawInput?: unknown;
  content?: ToolCallContent[];
  locations?: ToolCallLocation[];
}
export interface ToolCallUpdate {
  sessionUpdate: 'tool_call_update';
  toolCallId: string;
  status?: ToolCallStatus;
  title?: string;
  content?: ToolCallContent[];
  locations?: ToolCallLocation[];
  rawOutput?: unknown;
}
export interface Plan {
  sessionUpdate: 'plan';
  entries: PlanEntry[];
}

export type SessionUpdate = AgentMessageChunk | AgentThoughtChunk | UserMessageChunk | ToolCall | ToolCallUpdate | Plan;

/** One `content` event of the Agent face. */
export interface OutputEvent {
  sessionId?: string;
  update: SessionUpdate;
}
