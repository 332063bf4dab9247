/**
 * The lifecycle projection: sandbox and agent states, moved by the 19 reasons of the evolve
 * SDK. Pure: `LifecycleTracker.transition(reason)` returns the event to emit; `runEndReason`
 * maps a prompt's `result` onto its run_* reason.
 */
import type { ResultMessage } from '../messages/types.ts';

export type SandboxLifecycleState = 'booting' | 'error' | 'ready' | 'running' | 'paused' | 'stopped';
export type AgentRuntimeState = 'idle' | 'running' | 'interrupted' | 'error';
export type LifecycleReason =
  | 'sandbox_boot'
  | 'sandbox_ready'
  | 'sandbox_connected'
  | 'sandbox_pause'
  | 'sandbox_resume'
  | 'sandbox_killed'
  | 'sandbox_error'
  | 'run_start'
  | 'run_complete'
  | 'run_interrupted'
  | 'run_failed'
  | 'run_background_complete'
  | 'run_background_failed'
  | 'command_start'
  | 'command_complete'
  | 'command_failed'
  | 'command_interrupted'
  | 'command_background_complete'
  | 'command_background_failed';

export interface LifecycleEvent {
  sandboxId: string | null;
  sandbox: SandboxLifecycleState;
  agent: AgentRuntimeState;
  /** ISO 8601. */
  timestamp: string;
  reason: LifecycleReason;
}

/** Every reason, in the reference's order. */
export const LIFECYCLE_REASONS: readonly LifecycleReason[] = [
  'sandbox_boot',
  'sandbox_ready',
  'sandbox_connected',
  'sandbox_pause',
  'sandbox_resume',
  'sandbox_killed',
  'sandbox_error',
  'run_start',
  'run_complete',
  'run_interrupted',
  'run_failed',
  'run_background_complete',
  'run_background_failed',
  'command_start',
  'command_complete',
  'command_failed',
  'command_interrupted',
  'command_background_complete',
  'command_background_failed',
];

/** The states after each reason (`undefined`: unchanged). */
const TRANSITIONS: Record<LifecycleReason, [SandboxLifecycleState, AgentRuntimeState | undefined]> = {
  sandbox_boot: ['booting', 'idle'],
  sandbox_ready: ['ready', 'idle'],
  sandbox_connected: ['ready', 'idle'],
  sandbox_pause: ['paused', undefined],
  sandbox_resume: ['ready', undefined],
  sandbox_killed: ['stopped', 'idle'],
  sandbox_error: ['error', 'error'],
  run_start: ['running', 'running'],
  run_complete: ['ready', 'idle'],
  run_interrupted: ['ready', 'interrupted'],
  run_failed: ['ready', 'error'],
  run_background_complete: ['ready', 'idle'],
  run_background_failed: ['ready', 'error'],
  command_start: ['running', undefined],
  command_complete: ['ready', undefined],
  command_failed: ['ready', undefined],
  command_interrupted: ['ready', undefined],
  command_background_complete: ['ready', undefined],
  command_background_failed: ['ready', undefined],
};

export class LifecycleTracker {
  sandboxId: string | null = null;
  sandbox: SandboxLifecycleState = 'stopped';
  agent: AgentRuntimeState = 'idle';
  readonly #now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  transition(reason: LifecycleReason, sandboxId: string | null = this.sandboxId): LifecycleEvent {
    const [sandbox, agent] = TRANSITIONS[reason];
    this.sandboxId = sandboxId;
    // A paused sandbox stays paused when something ends in it (pause interrupts runs).
    this.sandbox = this.sandbox === 'paused' && sandbox === 'ready' && reason !== 'sandbox_resume' ? 'paused' : sandbox;
    if (agent) this.agent = agent;
    return {
      sandboxId: this.sandboxId,
      sandbox: this.sandbox,
      agent: this.agent,
      timestamp: this.#now().toISOString(),
      reason,
    };
  }
}

/** How a prompt's result ends its run. */
export function runEndReason(result: ResultMessage, background = false): LifecycleReason {
  if (result.subtype === 'success' && !result.is_error) return background ? 'run_background_complete' : 'run_complete';
  const interrupted = result.terminal_reason === 'aborted_streaming' || result.terminal_reason === 'aborted_tools';
  if (interrupted && !background) return 'run_interrupted';
  return background ? 'run_background_failed' : 'run_failed';
}

/** How a command's end is reported. */
export function commandEndReason(exitCode: number | null, interrupted: boolean, background = false): LifecycleReason {
  if (interrupted && !background) return 'command_interrupted';
  const ok = exitCode === 0 && !interrupted;
  if (background) return ok ? 'command_background_complete' : 'command_background_failed';
  return ok ? 'command_complete' : 'command_failed';
}
