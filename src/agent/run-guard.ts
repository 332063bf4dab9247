/**
 * What a run that may lose the right to act checks with before it acts: a cluster worker's run of
 * a session holds a lease, and once the lease may be lost it must neither ask the model again nor
 * start a tool (another worker may have taken the session over). A session on one machine has no
 * guard. The guard also journals each tool call before it starts, so a run that takes the session
 * over knows which calls started and reports their outcome as unknown instead of running them again.
 */

/** A tool call about to run. */
export interface GuardedCall {
  toolUseId: string;
  toolName: string;
  /** The Task call of the subagent that makes it; null for the main agent. */
  parentToolUseId: string | null;
}

export interface RunGuard {
  /** Before every model request: resolves while the run may go on; throws (the prompt ends) when it may not. */
  beforeModelRequest(signal: AbortSignal): Promise<void>;
  /**
   * Before a tool call runs (after its permission checks and PreToolUse hooks): resolves once the start is recorded
   * durably; throws when the run may no longer act (the call is then not run, and its result says why).
   */
  toolStarting(call: GuardedCall, signal: AbortSignal): Promise<void>;
}
