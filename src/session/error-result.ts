/** The `result` of a prompt that never ran: the session could not be opened, or its input line was refused. */
import type { ResultMessage, TerminalReason, UUID } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { UsageTracker } from '../agent/usage.ts';

/**
 * An `error_during_execution` result with no turn taken: the client gets a clean end. Also the one a stopped run still
 * owes its prompt (`terminalReason` `aborted_streaming`).
 */
export function setupErrorResult(
  message: string,
  sessionId?: string,
  terminalReason: TerminalReason = 'model_error',
): ResultMessage {
  const usage = new UsageTracker();
  return {
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    duration_ms: 0,
    duration_api_ms: 0,
    num_turns: 0,
    stop_reason: null,
    session_id: (sessionId ?? newUuid()) as UUID,
    total_cost_usd: 0,
    usage: usage.usage,
    modelUsage: usage.modelUsage,
    permission_denials: [],
    terminal_reason: terminalReason,
    uuid: newUuid(),
    errors: [message],
  };
}
