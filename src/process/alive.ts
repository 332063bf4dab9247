import { readFileSync } from 'node:fs';
import { errorCode } from './errors.ts';

/** Whether a process of this machine with `pid` exists (one of another user's counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** A process's start time (clock ticks since boot, /proc/<pid>/stat field 22); undefined when it does not run. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: the fields after its last ')' are plain.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Whether the process `pid` that was recorded with start time `started` still runs: a process with that pid exists
 * and started then ('0' or undefined: the start time was not known, the pid alone counts). A pid used again by
 * another process is not taken for the one that died.
 */
export function processRuns(pid: number, started: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return false;
  return started === undefined || started === '0' || startTimeOf(pid) === started;
}
