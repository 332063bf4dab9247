/**
 * The guard of a cluster run (agent/run-guard.ts): the fence checked before every model request
 * (a renewal that lands), and every tool call journalled in the session's log before it starts
 * (an `agentpipe_tool_start` line, appended in order after everything the run emitted before it,
 * and waited for); the call's `tool_result` ends it. A run that takes the session over finds a
 * call that started and has no result, and reports its outcome as unknown (takeover.ts) instead
 * of running it again: a tool call runs at most once, and a started one is never forgotten.
 */
import { newUuid } from '../../messages/ids.ts';
import type { GuardedCall, RunGuard } from '../../agent/run-guard.ts';
import type { SessionLog, ToolStartLine } from '../log/index.ts';
import type { Appender } from './appender.ts';
import type { LeaseKeeper } from './lease-keeper.ts';

export class ToolJournal implements RunGuard {
  readonly #keeper: LeaseKeeper;
  readonly #appender: Appender;
  readonly #log: SessionLog;
  readonly #sessionId: string;
  readonly #worker: string;

  constructor(o: { keeper: LeaseKeeper; appender: Appender; log: SessionLog; sessionId: string; worker: string }) {
    this.#keeper = o.keeper;
    this.#appender = o.appender;
    this.#log = o.log;
    this.#sessionId = o.sessionId;
    this.#worker = o.worker;
  }

  beforeModelRequest(signal: AbortSignal): Promise<void> {
    return this.#keeper.check(signal);
  }

  async toolStarting(call: GuardedCall): Promise<void> {
    this.#keeper.assertHeld();
    const line: ToolStartLine = {
      type: 'agentpipe_tool_start',
      session_id: this.#sessionId,
      uuid: newUuid(),
      tool_use_id: call.toolUseId,
      tool_name: call.toolName,
      parent_tool_use_id: call.parentToolUseId,
      worker: this.#worker,
      timestamp: new Date().toISOString(),
    };
    await this.#appender.pushAndWait(this.#log.encode([line]));
    // Landed (fenced, extending the lease): the lease holds well past this moment, unless the keeper says otherwise.
    this.#keeper.assertHeld();
  }
}
