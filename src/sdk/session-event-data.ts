/** Payload builders of the Copilot-style session events (kept apart to keep the projector short). */
import { withoutToolUseErrorTags } from '../messages/notices.ts';
import type { ResultMessage, SystemInitMessage, ToolResultBlock } from '../messages/types.ts';
import type { SessionEventType } from './session-events.ts';

export function sessionStartData(init: SystemInitMessage): Record<string, unknown> {
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

/** `assistant.usage` per model, then `session.usage_info`. */
export function usageEvents(
  result: ResultMessage,
  contextTokens: number,
  messages: number,
): Array<[SessionEventType, Record<string, unknown>]> {
  const events: Array<[SessionEventType, Record<string, unknown>]> = [];
  let tokenLimit = 0;
  for (const [model, usage] of Object.entries(result.modelUsage)) {
    tokenLimit = Math.max(tokenLimit, usage.contextWindow);
    events.push([
      'assistant.usage',
      {
        model,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheReadTokens: usage.cacheReadInputTokens,
        cacheWriteTokens: usage.cacheCreationInputTokens,
        cost: usage.costUSD,
        duration: result.duration_api_ms,
      },
    ]);
  }
  events.push(['session.usage_info', { tokenLimit, currentTokens: contextTokens, messagesLength: messages }]);
  return events;
}
