/**
 * A saved session's stream (its transcript) as the v2 turns of thread/read and thread/resume,
 * through the same projection and turn bookkeeping as live turns: each prompt's echo starts a turn
 * (its id is the prompt's uuid), its `result` ends it.
 */
import type { AgentMessage } from '../../messages/types.ts';
import { isPromptEcho } from '../../messages/user.ts';
import { CodexItemProjector } from '../projector.ts';
import { failureOf } from '../items.ts';
import { CodexTurn, ThreadUsage } from './turn.ts';

const quiet = async () => {};

/** The turns of a saved stream, oldest first. */
export async function turnsOf(log: readonly AgentMessage[], threadId: string, cwd: string): Promise<CodexTurn[]> {
  const projector = new CodexItemProjector({ cwd });
  const usage = new ThreadUsage();
  const turns: CodexTurn[] = [];
  let turn: CodexTurn | undefined;
  for (const message of log) {
    if (isPromptEcho(message) && message.parent_tool_use_id === null && !turn) {
      turn = new CodexTurn({ id: message.uuid, threadId, notify: quiet, usage });
      turns.push(turn);
    }
    if (!turn) continue;
    for (const event of projector.push(message)) await turn.event(event);
    if (message.type === 'result') {
      for (const event of projector.finish()) await turn.event(event);
      const failure = failureOf(message);
      await turn.end(failure === undefined ? 'completed' : 'failed', failure ?? null);
      turn = undefined;
    }
  }
  if (turn) {
    for (const event of projector.finish()) await turn.event(event);
    await turn.end('interrupted', null);
  }
  return turns;
}
