/**
 * Fencing: a session has one writer, the holder of its lease. Every write of the log runs a Lua
 * script that checks the lease first (lua/scripts.ts, FENCE) and answers `FENCED expired` or
 * `FENCED taken` otherwise; `fenced()` is the one place that turns those replies into a
 * FencedError. Owner tokens must be unique per acquisition (a random uuid), never reused.
 */
import { AgentpipeError } from '../../process/errors.ts';

/** The caller no longer owns the session's lease: its append (or renewal) was refused and nothing of it landed. */
export class FencedError extends AgentpipeError {
  static override readonly errorName: string = 'FencedError';
  readonly sessionId: string;
  /** `expired`: nobody holds the lease now; `taken`: another owner holds it. */
  readonly reason: 'expired' | 'taken';
  constructor(sessionId: string, reason: 'expired' | 'taken') {
    const why = reason === 'expired' ? 'its lease expired' : 'another worker took it over';
    super(`session ${sessionId}: this worker no longer owns it (${why}); nothing was appended`);
    this.sessionId = sessionId;
    this.reason = reason;
  }
}

const FENCED_REPLY = /^FENCED (expired|taken)/;

/** Runs a fenced write: a FENCED reply becomes a FencedError, any other failure is thrown as it is. */
export async function fenced<T>(sessionId: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const match = error instanceof Error ? FENCED_REPLY.exec(error.message) : null;
    if (match) throw new FencedError(sessionId, match[1] === 'taken' ? 'taken' : 'expired');
    throw error;
  }
}
