/** The processes below a Gemini CLI (its shell commands run in process groups of their own), read from /proc. */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { findExecutable } from '../../process/executable.ts';

/** A file's text, or null when it cannot be read. */
export const readOrNull = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** The processes under `root` (pid and process group), from /proc, else from `ps`. */
export function descendants(root: number): { pid: number; pgid: number }[] {
  const table: { pid: number; ppid: number; pgid: number }[] = [];
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const stat = readOrNull(`/proc/${name}/stat`);
      const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields && fields.length > 3)
        table.push({ pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]) });
    }
  } catch {
    // By its path: a bare name is looked up on PATH, whose folders inside the working folders a command may write.
    const ps = findExecutable('ps');
    if (ps === undefined) return [];
    try {
      for (const line of execFileSync(ps, ['-A', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' }).split('\n')) {
        const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
        if (pid && ppid !== undefined && pgid) table.push({ pid, ppid, pgid });
      }
    } catch {
      return [];
    }
  }
  const found: { pid: number; pgid: number }[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push({ pid: p.pid, pgid: p.pgid });
        grew = true;
      }
    }
  }
  return found;
}
