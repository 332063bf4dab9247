/** The user messages every layer builds, in one place each. */
import type { InputUserMessage } from './control.ts';
import { newUuid } from './ids.ts';
import type { AgentMessage, UserContentBlock, UserMessage, UUID } from './types.ts';

/** A prompt as it enters a session (a stream-json input line). */
export function promptMessage(
  content: string | UserContentBlock[],
  sessionId = '',
  parentToolUseId: string | null = null,
): InputUserMessage {
  return {
    type: 'user',
    message: { role: 'user', content },
    parent_tool_use_id: parentToolUseId,
    session_id: sessionId,
  };
}

/** A user message the session emits (a tool result, a notice, a subagent's prompt), with a fresh uuid and the time. */
export function userMessage(
  content: string | UserContentBlock[],
  sessionId: string,
  parentToolUseId: string | null,
  extra: Pick<UserMessage, 'tool_use_result' | 'tool_result_meta' | 'isSynthetic'> = {},
): UserMessage {
  return {
    type: 'user',
    message: { role: 'user', content },
    parent_tool_use_id: parentToolUseId,
    session_id: sessionId,
    uuid: newUuid(),
    timestamp: new Date().toISOString(),
    ...extra,
  };
}

/**
 * The echo of a prompt on the session's stream (`isReplay`, the prompt's uuid), as Claude Code
 * writes it with `--replay-user-messages`: the message as the client sent it. The session emits
 * one after `system/init` of each prompt it runs (with the time), the runner one for a repeated
 * uuid it does not run again (without). Every face projects the prompt from it; stream-json
 * prints it only when asked.
 */
export function promptEcho(
  input: InputUserMessage,
  sessionId: string,
  uuid: string,
  timestamp?: string,
): UserMessage & { isReplay: true } {
  return {
    type: 'user',
    message: input.message,
    session_id: sessionId,
    parent_tool_use_id: input.parent_tool_use_id ?? null,
    uuid: uuid as UUID,
    ...(timestamp ? { timestamp } : {}),
    isReplay: true,
  };
}

/** True for the echo of a prompt (`promptEcho`). */
export function isPromptEcho(message: AgentMessage): message is UserMessage & { isReplay: true } {
  return message.type === 'user' && message.isReplay === true;
}
