/** The two user messages every layer builds, in one place each. */
import type { InputUserMessage } from './control.ts';
import { newUuid } from './ids.ts';
import type { UserContentBlock, UserMessage } from './types.ts';

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
  extra: Pick<UserMessage, 'tool_use_result' | 'isSynthetic'> = {},
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
