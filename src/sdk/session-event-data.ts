/** Payload builders of the Copilot-style session events (kept apart to keep the projector short). */
import { withoutToolUseErrorTags } from '../messages/notices.ts';
import type { AgentMessage, ResultMessage, SystemInitMessage, ToolResultBlock } from '../messages/types.ts';
import type { SessionEventDataMap } from './session-events.ts';

export function sessionStartData(init: SystemInitMessage): SessionEventDataMap['session.start'] {
  return {
    sessionId: init.session_id,
    version: 1,
    producer: 'agentpipe',
    agentpipeVersion: init.agentpipe_version,
    selectedModel: init.model,
    context: { cwd: init.cwd },
    tools: init.tools,
    permissionMode: init.permissionMode,
  };
}

/** Agent name and description of a subagent (Task/Agent) call; undefined for other tools. */
export function subagentInfo(
  name: string,
  input: Record<string, unknown>,
): { agentName: string; agentDisplayName: string; agentDescription: string } | undefined {
  if (name !== 'Task' && name !== 'Agent') return undefined;
  const agentName = typeof input.subagent_type === 'string' ? input.subagent_type : 'general-purpose';
  return {
    agentName,
    agentDisplayName: agentName,
    agentDescription: typeof input.description === 'string' ? input.description : '',
  };
}

/** A tool result's text, as people read it (a refused call's message without its `<tool_use_error>` tags). */
export function toolResultText(block: ToolResultBlock): string {
  return withoutToolUseErrorTags(
    typeof block.content === 'string'
      ? block.content
      : block.content.map((b) => (b.type === 'text' ? b.text : '[image]')).join(''),
  );
}

/** The data of `assistant.usage` (one per model) and of `session.usage_info` after a result. */
export function usageEvents(
  result: ResultMessage,
  contextTokens: number,
  messages: number,
): { usage: Array<SessionEventDataMap['assistant.usage']>; info: SessionEventDataMap['session.usage_info'] } {
  let tokenLimit = 0;
  // The prompt's own usage: modelUsage is the session's running total (as in Claude Code 2.1.332).
  const usage = Object.entries(result.model_usage_since_last_result ?? result.modelUsage).map(([model, u]) => {
    tokenLimit = Math.max(tokenLimit, u.contextWindow);
    return {
      model,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cacheReadTokens: u.cacheReadInputTokens,
      cacheWriteTokens: u.cacheCreationInputTokens,
      cost: u.costUSD,
      duration: result.duration_api_ms,
    };
  });
  return { usage, info: { tokenLimit, currentTokens: contextTokens, messagesLength: messages } };
}

/**
 * The tokens of the context after this message: the prompt side of a main-thread assistant
 * message's usage (input, cache reads and writes); undefined for every other message (a
 * subagent's, a failed request's). session.usage_info and ACP's usage_update report the last one.
 */
export function contextTokensOf(message: AgentMessage): number | undefined {
  if (message.type !== 'assistant' || message.parent_tool_use_id || message.error) return undefined;
  const usage = message.message.usage;
  return usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}
