/**
 * session/load: a session's stream as the updates that replay it, through the same ACP projection
 * as live prompts, with the prompts shown (their echoes become `user_message_chunk`s). The stream
 * comes from the live session, or from its saved transcript (a session of an earlier `agentpipe
 * acp` or of any other entry point).
 */
import type { AgentMessage } from '../messages/types.ts';
import { ownMessage } from '../messages/wire.ts';
import { AcpUpdateProjector } from '../sdk/acp-updates.ts';
import type { SessionUpdate } from '../sdk/acp-types.ts';
import type { TranscriptLine } from '../session/transcript-format.ts';

export function replayUpdates(log: readonly AgentMessage[]): SessionUpdate[] {
  const projector = new AcpUpdateProjector({ showPrompts: true });
  return log.flatMap((message) => projector.push(message));
}

/**
 * A transcript's lines as the stream they were written from: each turn's prompt line as the
 * prompt's echo, then what the session emitted. History snapshots and context added by hooks are
 * bookkeeping, not shown.
 */
export function transcriptLog(lines: TranscriptLine[]): AgentMessage[] {
  const log: AgentMessage[] = [];
  for (const line of lines) {
    if (line.type === 'agentpipe_snapshot' || (line.type === 'user' && (line.agentpipe_context || line.isReplay)))
      continue;
    // The fields the projection reads were validated (transcript-schema.ts); the rest are as the session emitted them.
    const message = ownMessage(line);
    log.push(
      message.type === 'user' && line.type === 'user' && line.agentpipe_prompt
        ? { ...message, isReplay: true }
        : message,
    );
  }
  return log;
}
