/** The processes of the machine, for tests that check nothing was left running. */
import { execFileSync, spawn } from 'node:child_process';

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

/** What a finished process wrote, and its exit code. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end with an empty pipe as stdin; its output and exit code. */
export function runToEnd(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let [stdout, stderr] = ['', ''];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise<Finished>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
