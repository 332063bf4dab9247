/**
 * The names of the sandbox's per-process temp folders (`agentpipe-sbx-…` in the temp root), and the sweep that removes
 * those a process left when it was killed (SIGKILL, a crash, a power cut: its exit handler never ran).
 *
 * A folder's name carries its owner: the pid namespace, the pid and the process's start time. A folder is removed
 * only when it is a real folder (not a link) of this user, named in this pid namespace (a pid of another one means
 * another process), and no process with that pid and start time runs. What a dead run's commands left inside it goes
 * with it; links inside are removed, never followed. Folders of earlier versions (no owner in the name) are left.
 */
import { lstatSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { processRuns, startTimeOf } from '../process/alive.ts';

const PREFIX = 'agentpipe-sbx-';
const OWNED = /^agentpipe-sbx-(?:parts-)?(\d+)-(\d+)-(\d+)-[A-Za-z0-9]{6}$/;

/** This process's pid namespace (its inode number), or undefined where /proc does not say. */
function pidNamespace(): string | undefined {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
}

/** The start of the name of a temp folder of this process (`kind` 'parts' for the private parts' folder). */
export function tempFolderPrefix(kind?: 'parts'): string {
  const owner = `${pidNamespace() ?? '0'}-${process.pid}-${startTimeOf(process.pid) ?? '0'}`;
  return `${PREFIX}${kind ? `${kind}-` : ''}${owner}-`;
}

/** Removes the temp folders in `root` whose owner (named in this pid namespace) no longer runs; returns them. */
export function sweepLeftFolders(root: string): string[] {
  const namespace = pidNamespace();
  if (namespace === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(root).filter((name) => name.startsWith(PREFIX));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const [, ns, pid, started] = OWNED.exec(name) ?? [];
    if (ns !== namespace || processRuns(Number(pid), started)) continue;
    const folder = path.join(root, name);
    try {
      const info = lstatSync(folder);
      if (!info.isDirectory() || info.uid !== process.getuid?.()) continue;
      rmSync(folder, { recursive: true, force: true });
      removed.push(folder);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}
