/** Small helpers over the message union, as in the official SDK's docs. */
import type {
  AgentMessage,
  AssistantContentBlock,
  PermissionDenial,
  ResultMessage,
  SystemInitMessage,
  UserContentBlock,
} from '../messages/types.ts';

export function isResultMessage(message: AgentMessage): message is ResultMessage {
  return message.type === 'result';
}

export function isSystemInitMessage(message: AgentMessage): message is SystemInitMessage {
  return message.type === 'system' && message.subtype === 'init';
}

/** The content blocks of an assistant or user message (undefined for other messages and string content). */
export function getMessageContentBlocks(
  message: AgentMessage,
): Array<AssistantContentBlock | UserContentBlock> | undefined {
  if (message.type === 'assistant') return message.message.content;
  if (message.type !== 'user') return undefined;
  const content = message.message.content;
  return typeof content === 'string' ? undefined : content;
}

/** The text of an assistant or user message. */
export function getMessageText(message: AgentMessage): string {
  if (message.type === 'user' && typeof message.message.content === 'string') return message.message.content;
  return (getMessageContentBlocks(message) ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The `system/init` fields (undefined ones for other messages). */
export function getSystemInitData(message: AgentMessage): {
  subtype?: string;
  model?: string;
  tools?: string[];
  session_id?: string;
  cwd?: string;
} {
  if (!isSystemInitMessage(message))
    return { subtype: 'subtype' in message ? message.subtype : undefined, session_id: message.session_id };
  return {
    subtype: message.subtype,
    model: message.model,
    tools: message.tools,
    session_id: message.session_id,
    cwd: message.cwd,
  };
}

/** The tool calls a `result` says were not allowed to run ([] for other messages). */
export function getPermissionDenials(message: AgentMessage): PermissionDenial[] {
  return isResultMessage(message) ? message.permission_denials : [];
}
