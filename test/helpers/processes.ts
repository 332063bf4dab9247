/** The processes of the machine, for tests that check nothing was left running. */
import { execFileSync } from 'node:child_process';

/** `pid args` of every running process whose command line contains `marker`. */
export function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'))
    .map((line) => line.trim());
}

/** True while some process of group `pgid` runs. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (up to ~2 s: killed processes may linger until they are reaped) for group `pgid` to be gone; false if not. */
export async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 100 && groupAlive(pgid); i++) await new Promise((r) => setTimeout(r, 20));
  return !groupAlive(pgid);
}
