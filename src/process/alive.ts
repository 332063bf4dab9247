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
