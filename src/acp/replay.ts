/** session/load: the updates that replay a session's prompts and messages through the ACP projection. */
import type { AgentMessage } from '../messages/types.ts';
import { AcpUpdateProjector } from '../sdk/acp-updates.ts';

export function replayUpdates(log: Array<{ prompt: unknown[] } | { message: AgentMessage }>): Array<Record<string, unknown>> {
  const projector = new AcpUpdateProjector();
  const updates: Array<Record<string, unknown>> = [];
  for (const entry of log) {
    if ('prompt' in entry) for (const content of entry.prompt) updates.push({ sessionUpdate: 'user_message_chunk', content });
    else for (const update of projector.push(entry.message)) updates.push(update as unknown as Record<string, unknown>);
  }
  return updates;
}
