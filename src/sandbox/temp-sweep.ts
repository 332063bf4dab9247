/**
 * The names of the sandbox's per-process temp folders (`agentpipe-sbx-…` in the temp root), and the sweep that removes
 * those a process left when it was killed (SIGKILL, a crash: its exit handler never ran).
 *
 * A folder's name carries its owner: the kernel's boot, the pid namespace, the pid and the process's start time. A
 * folder is removed only when it is a real folder (not a link) of this user, named on this boot (a temp root shared
 * with another machine holds its folders too) in this pid namespace (a pid of another one means another process), and
 * no process with that pid and start time runs. What a dead run's commands left inside it goes with it; links inside
 * are removed, never followed, though a command still running swaps one in meanwhile. Folders of earlier versions (no
 * owner in the name) and of earlier boots (the system's temp cleaning has them) are left.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  unlinkSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { processRuns, startTimeOf } from '../process/alive.ts';

const PREFIX = 'agentpipe-sbx-';
const OWNED = /^agentpipe-sbx-(?:parts-)?([0-9a-f]{12})-(\d+)-(\d+)-(\d+)-[A-Za-z0-9]{6}$/;
/** Linux's O_PATH (asm-generic: each architecture Node runs on; Node does not name it): a handle that reads nothing. */
const O_PATH = 0o10000000;
/** A folder held never through a link (its last part) and only as a folder, though it may not be read. */
const HELD = O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** How deep one pass of the removal goes (a descriptor a level): a folder deeper is moved up to the top one. */
const MAX_DEPTH = 256;
/** How many passes the removal makes: a tree deeper than all of them (made to keep the removal busy) is left. */
const PASSES = 16;

/** This process's pid namespace (its inode number), or undefined where /proc does not say. */
function pidNamespace(): string | undefined {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * This boot of this machine's kernel: the start of its boot id. Every machine's first pid namespace has the same inode
 * number, so a temp root shared between machines (over NFS, with a VM) holds folders named in "this" namespace for
 * processes this machine never ran; the boot tells them apart.
 */
function bootOf(): string | undefined {
  try {
    return /^([0-9a-f]{8})-([0-9a-f]{4})-/
      .exec(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'))
      ?.slice(1)
      .join('');
  } catch {
    return undefined;
  }
}

/** Who owns a folder: this boot, pid namespace, pid and start time (undefined parts: not known). */
function owner(pid: number): string {
  return `${bootOf() ?? '0'.repeat(12)}-${pidNamespace() ?? '0'}-${pid}-${startTimeOf(pid) ?? '0'}`;
}

/** The start of the name of a temp folder of this process (`kind` 'parts' for the private parts' folder). */
export function tempFolderPrefix(kind?: 'parts'): string {
  return `${PREFIX}${kind ? `${kind}-` : ''}${owner(process.pid)}-`;
}

/** Removes the temp folders in `root` whose owner (this boot, this pid namespace) no longer runs; returns them. */
export function sweepLeftFolders(root: string): string[] {
  const [boot, namespace] = [bootOf(), pidNamespace()];
  if (boot === undefined || namespace === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(root).filter((name) => name.startsWith(PREFIX));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const [, at, ns, pid, started] = OWNED.exec(name) ?? [];
    if (at !== boot || ns !== namespace || processRuns(Number(pid), started)) continue;
    const folder = path.join(root, name);
    if (removeTempFolder(folder)) removed.push(folder);
  }
  return removed;
}

/**
 * Removes `folder` when it is a real folder of this user, and all it holds, through opened folders: each folder is
 * opened without following a link (`O_NOFOLLOW`) and what is in it is named through its descriptor
 * (`/proc/self/fd/<n>/<name>`), so a folder swapped for a link meanwhile (by a sandboxed command still running: the
 * session's temp folder is its TMPDIR, a dead owner's is in a temp root it may write) leads nowhere: removing unlinks
 * links, never what they lead to. False when it was not removed (not ours, gone meanwhile, too deep).
 */
export function removeTempFolder(folder: string): boolean {
  try {
    return removeOwnFolder(folder);
  } catch {
    return false;
  }
}

/** `removeTempFolder`, throwing when it fails. */
function removeOwnFolder(folder: string): boolean {
  if (!lstatSync(folder).isDirectory()) return false;
  const fd = openOwnFolder(folder);
  if (fd === undefined) return false;
  try {
    for (let pass = 0; pass < PASSES && emptyOpened(fd, fd, 0); pass++);
  } finally {
    closeSync(fd);
  }
  rmdirSync(folder);
  return true;
}

/**
 * The folder `entry` names opened to read (never through a link), when it is a folder of this user; undefined when it
 * is not. A command may have taken its own access away (`chmod 000`, `chmod 500` on a folder holding files): the
 * folder is given it back first, through a handle (`O_PATH`) to that very folder, so what it left is removed all the
 * same (a user's `rm -rf` would stop there).
 */
function openOwnFolder(entry: string): number | undefined {
  let held: number;
  try {
    held = openSync(entry, HELD);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(held);
    if (!info.isDirectory() || info.uid !== process.getuid?.()) return undefined;
    const through = `/proc/self/fd/${held}`;
    if ((info.mode & 0o700) !== 0o700) chmodSync(through, 0o700);
    return openSync(through, constants.O_RDONLY | constants.O_DIRECTORY);
  } finally {
    closeSync(held);
  }
}

/**
 * Removes what the opened folder `fd` holds, never through a link; a folder deeper than `MAX_DEPTH` is moved up into
 * the opened folder `top` instead: true when one was (another pass is needed).
 */
function emptyOpened(fd: number, top: number, depth: number): boolean {
  const here = `/proc/self/fd/${fd}`;
  let moved = false;
  for (const name of readdirSync(here)) {
    const entry = `${here}/${name}`;
    // Not a folder, or a link (to one or not): the entry itself goes.
    const inner = openOwnFolder(entry);
    if (inner === undefined) {
      unlinkSync(entry);
      continue;
    }
    if (depth === MAX_DEPTH) {
      closeSync(inner);
      renameSync(entry, `/proc/self/fd/${top}/deeper-${randomUUID()}`);
      moved = true;
      continue;
    }
    try {
      moved = emptyOpened(inner, top, depth + 1) || moved;
    } finally {
      closeSync(inner);
    }
    rmdirSync(entry);
  }
  return moved;
}
