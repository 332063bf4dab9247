/**
 * session/load: a session's prompts and messages as the updates that replay it, through the
 * same ACP projection as live prompts. The entries come from the live session, or from its
 * saved transcript (a session of an earlier `agentpipe acp` or of any other entry point).
 */
import type { AgentMessage } from '../messages/types.ts';
import { AcpUpdateProjector } from '../sdk/acp-updates.ts';
import type { TranscriptLine } from '../session/transcript-format.ts';
import { acpContentOf } from './convert.ts';

/** One step of a session: a prompt (ACP content blocks) or a message it emitted. */
export type LogEntry = { prompt: unknown[] } | { message: AgentMessage };

export function replayUpdates(log: LogEntry[]): Array<Record<string, unknown>> {
  const projector = new AcpUpdateProjector();
  const updates: Array<Record<string, unknown>> = [];
  for (const entry of log) {
    if ('prompt' in entry)
      for (const content of entry.prompt) updates.push({ sessionUpdate: 'user_message_chunk', content });
    else for (const update of projector.push(entry.message)) updates.push(update as unknown as Record<string, unknown>);
  }
  return updates;
}

/**
 * A transcript's lines as log entries: each turn's prompt, then what the session emitted.
 * History snapshots and context added by hooks are bookkeeping, not shown.
 */
export function transcriptLog(lines: TranscriptLine[]): LogEntry[] {
  const log: LogEntry[] = [];
  for (const line of lines) {
    if (line.type === 'agentpipe_snapshot' || (line.type === 'user' && (line.agentpipe_context || line.isReplay)))
      continue;
    if (line.type === 'user' && line.agentpipe_prompt) log.push({ prompt: acpContentOf(line.message.content) });
    // The fields the projection reads were validated (transcript-schema.ts); the rest are as the session emitted them.
    else log.push({ message: line as unknown as AgentMessage });
  }
  return log;
}
