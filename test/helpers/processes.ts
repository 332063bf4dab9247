/** The processes of the machine, for tests that check nothing was left running. */
import { execFileSync } from 'node:child_process';

/** `pid args` of every running process whose command line contains `marker`. */
export function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'))
    .map((line) => line.trim());
}
