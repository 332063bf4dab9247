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

/** True for the echo of a prompt (`promptEcho`), not a local command's output (`localCommandOutput`). */
export function isPromptEcho(message: AgentMessage): message is UserMessage & { isReplay: true } {
  return message.type === 'user' && message.isReplay === true && !isLocalCommandOutput(message);
}

const LOCAL_STDOUT = /^<local-command-stdout>[\s\S]*<\/local-command-stdout>$/;

/**
 * What a local command printed (Claude Code's `/model` a client's `setModel()` runs), as Claude Code 2.1.332 sends
 * it on the stream whether or not prompts are echoed: a replayed user message of one `<local-command-stdout>` string.
 */
export function localCommandOutput(stdout: string, sessionId: string): UserMessage & { isReplay: true } {
  return {
    type: 'user',
    message: { role: 'user', content: `<local-command-stdout>${stdout}</local-command-stdout>` },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: newUuid(),
    timestamp: new Date().toISOString(),
    isReplay: true,
  };
}

/** True for a local command's output (`localCommandOutput`). */
export function isLocalCommandOutput(message: AgentMessage): boolean {
  return (
    message.type === 'user' &&
    message.isReplay === true &&
    typeof message.message.content === 'string' &&
    LOCAL_STDOUT.test(message.message.content)
  );
}
