/**
 * One writer per session: a lock file beside the transcript (`<id>.jsonl.lock`) holds the owner's
 * pid and host. A second process that resumes the same session is refused with a clear message
 * (its lines would interleave with the first's and break the history); a lock whose owner is
 * dead (same host, no such pid) is stale and taken over. Locks are released when the session
 * closes, and on process exit for whatever is still held.
 */
import { AgentpipeError, errorCode } from '../process/errors.ts';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from '../process/alive.ts';
import { makePrivateFolderSync, PRIVATE_FILE, tightenFolderSync } from '../process/private-files.ts';
import { isRecord } from '../process/guards.ts';

/** The session is in use by another writer. */
export class SessionLockedError extends AgentpipeError {
  static override readonly errorName: string = 'SessionLockedError';
}

interface Owner {
  pid: number;
  host: string;
  since: string;
}

const held = new Set<string>();
let exitHook = false;

function readOwner(lock: string): Owner | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(lock, 'utf8'));
    return isRecord(value) && typeof value.pid === 'number' && typeof value.host === 'string'
      ? { pid: value.pid, host: value.host, since: String(value.since) }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Creates `lock` with `owner` in it, or nothing: a lock that could not be written whole (a full disk) is removed. */
function writeLock(lock: string, owner: string): void {
  const fd = openSync(lock, 'wx', PRIVATE_FILE);
  let written = false;
  try {
    writeSync(fd, owner);
    written = true;
  } finally {
    closeSync(fd);
    if (!written) rmSync(lock, { force: true });
  }
}

/** Takes the lock of `transcript`; returns its release function. Throws SessionLockedError when taken. */
export function lockTranscript(transcript: string, sessionId: string): () => void {
  const lock = `${transcript}.lock`;
  // The transcripts folder is agentpipe's own: private, as the transcripts in it (an older version made it 0755).
  makePrivateFolderSync(path.dirname(lock));
  tightenFolderSync(path.dirname(lock));
  const me: Owner = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeLock(lock, JSON.stringify(me));
      held.add(lock);
      if (!exitHook) {
        exitHook = true;
        process.once('exit', () => {
          for (const file of held) rmSync(file, { force: true });
        });
      }
      return () => {
        if (held.delete(lock)) rmSync(lock, { force: true });
      };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      const owner = readOwner(lock);
      // A lock of a dead process on this machine (or an unreadable one) is stale: take it over.
      if (owner === undefined || (owner.host === me.host && !processAlive(owner.pid))) {
        rmSync(lock, { force: true });
        continue;
      }
      throw new SessionLockedError(
        `session ${sessionId} is in use by process ${owner.pid} on ${owner.host} (since ${owner.since}): two ` +
          `writers would interleave its transcript. ` +
          `Wait for it to end, or add --fork-session to continue in a copy (lock file: ${lock})`,
      );
    }
  }
  throw new SessionLockedError(`session ${sessionId}: could not take the lock ${lock}`);
}
