/**
 * Mount points bubblewrap makes in a working folder for a protected folder that is missing
 * (`.agentpipe`, `.claude`: see mounts.ts), shared by every agentpipe process of this user on
 * the machine.
 *
 * A point may be removed only when no run anywhere has it mounted. Removing a folder that is a
 * mount point in another process's mount namespace succeeds and detaches that mount there
 * (Linux 3.18 and later), so the other run's command could then create the folder it protects;
 * and a run that found the point and is about to bind it fails ("bwrap: Can't get type of source").
 * Each run that mounts a point leaves a marker file `<registry>/<hash of the point>/<pid>-<start time>-<n>`;
 * the run that releases the last marker of a live process removes the point. Claiming and
 * releasing happen under a per-point lock (an exclusive mkdir), so no run can claim a point
 * between another's last look and its removal. Markers of processes that died (SIGKILL) are
 * dropped on the next look, and the point they left is then claimed as a point, not taken for a
 * folder of the user's; a process reaps every such folder when it first uses the registry
 * (`reapDead`). A pid used again by another process is not taken for the one that died: the
 * marker holds the process's start time.
 *
 * The registry is private to the user (mode 0700, checked) and hidden from every sandbox (see
 * `pointRegistry`).
 */
import { errorCode } from '../process/errors.ts';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive, startTimeOf } from '../process/alive.ts';
import { makePrivateFolderSync, PRIVATE_FILE } from '../process/private-files.ts';

/** A run's hold on a mount point; give it back with `releasePoint` once the run ended. */
export interface PointClaim {
  point: string;
  marker: string;
}

/** What is known of a point when a run looks at it (under its lock). */
export interface PointState {
  /** Another live run has it mounted now. */
  inUse: boolean;
  /** It was a point of ours (markers were left, live or of a process that died). */
  wasPoint: boolean;
}

/** How long a lock may be held before it is taken for one a dead process left. */
const STALE_LOCK_MS = 10_000;
/** How long a run waits for a point's lock before it gives up with an error. */
const LOCK_WAIT_MS = 30_000;

let sequence = 0;
let started: string | undefined;

/** This process's start time as its markers record it ('0' where /proc does not say). */
function ownStart(): string {
  return (started ??= startTimeOf(process.pid) ?? '0');
}

/**
 * Looks at `point` under its lock; `mount(state)` says whether this run mounts it as a point. If it
 * does, a marker is left and the claim returned.
 */
export function claimPoint(point: string, mount: (state: PointState) => boolean): PointClaim | undefined {
  const mine = held.get(point);
  if (mine) {
    // This process holds it already (another run, a session's hold): no other process may remove it meanwhile.
    if (!mount({ inUse: true, wasPoint: true })) return undefined;
    mine.users++;
    return mine.claim;
  }
  const claim = claimLocked(point, mount);
  if (claim) {
    held.set(point, { claim, users: 1 });
    if (!releasingAtExit) process.once('exit', releaseAllPoints);
    releasingAtExit = true;
  }
  return claim;
}

/** Points this process holds a marker on, with the number of its runs (and sessions) using each. */
const held = new Map<string, { claim: PointClaim; users: number }>();
let releasingAtExit = false;

/** Gives back every point this process holds (it exits). */
function releaseAllPoints(): void {
  for (const { claim } of held.values()) releaseLocked(claim);
  held.clear();
}

function claimLocked(point: string, mount: (state: PointState) => boolean): PointClaim | undefined {
  const dir = markersOf(point);
  return locked(dir, () => {
    const { live, stale } = markers(dir);
    if (!mount({ inUse: live > 0, wasPoint: live + stale > 0 })) {
      if (stale > 0) rmSync(dir, { recursive: true, force: true });
      return undefined;
    }
    makePrivateFolderSync(dir);
    const marker = path.join(dir, `${process.pid}-${ownStart()}-${++sequence}`);
    writeFileSync(marker, point, { mode: PRIVATE_FILE });
    return { point, marker };
  });
}

/** Gives back a claim: the point is removed if no live run holds it any more (and it is empty). */
export function releasePoint(claim: PointClaim): void {
  const mine = held.get(claim.point);
  if (mine && --mine.users > 0) return;
  held.delete(claim.point);
  releaseLocked(claim);
}

function releaseLocked(claim: PointClaim): void {
  const dir = path.dirname(claim.marker);
  locked(dir, () => {
    rmSync(claim.marker, { force: true });
    if (markers(dir).live > 0) return;
    removePoint(claim.point);
    rmSync(dir, { recursive: true, force: true });
  });
}

/** Removes a point no run uses: an empty folder, or an empty file (one written outside the sandbox is left). */
function removePoint(point: string): void {
  try {
    const info = lstatSync(point);
    if (info.isDirectory()) rmdirSync(point);
    else if (info.isFile() && info.size === 0) unlinkSync(point);
  } catch {
    // already gone, or not empty (something outside the sandbox wrote there): left as it is
  }
}

/** The marker folder of one point (made under its lock by the run that claims it, removed with the point). */
function markersOf(point: string): string {
  return path.join(pointRegistry(), `${fnv1a(point, 0x811c9dc5)}${fnv1a(point, 0x050c5d1f)}`);
}

/**
 * A 32-bit FNV-1a hash of `text` from `seed`, as 8 hex digits (two seeds name a point's folder).
 * Not node:crypto: its first use costs tens of milliseconds, paid by every sandboxed run's first
 * command. Two points that collided would only share their claims (a point kept a little longer).
 */
function fnv1a(text: string, seed: number): string {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * The user's registry folder, made once per process and checked to be the user's own and private.
 * Every sandbox hides it (a writable temp folder, `allowWrite: ["/tmp"]`, would let a command drop
 * another run's markers, plant its own or hold a lock). It is found from the user's account, never
 * from the environment, so every process of the user on this machine shares it whatever its
 * TMPDIR, HOME or AGENTPIPE_HOME: `<home from the password database>/.cache/agentpipe/points-<host>`
 * (the host's name in it, as a home folder may be shared between machines, whose pids differ). Only
 * where that folder cannot be made (no home, a read-only one) is it `agentpipe-points-<uid>` in the
 * temp folder, where another user could have made the name first: that fails closed.
 */
let registryDir: string | undefined;
export function pointRegistry(): string {
  if (registryDir !== undefined) return registryDir;
  const uid = process.getuid?.() ?? 0;
  const home = accountHome();
  if (home !== undefined) {
    const dir = path.join(home, '.cache', 'agentpipe', `points-${os.hostname()}`);
    try {
      registryDir = privateRegistry(dir, uid);
    } catch {
      // no usable home folder: the temp folder's, below
    }
  }
  registryDir ??= privateRegistry(path.join(os.tmpdir(), `agentpipe-points-${uid}`), uid);
  reapDead(registryDir);
  return registryDir;
}

/**
 * Drops the claims of processes that are gone (killed with SIGKILL, they gave nothing back), once per process when it
 * first uses the registry: each marker folder that no live process holds goes, with the point it names (when it is
 * still an empty folder or file). A folder is otherwise only looked at when a run claims the same point again, which
 * a run in a fresh temp folder never does.
 */
function reapDead(registry: string): void {
  let names: string[];
  try {
    names = readdirSync(registry);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.endsWith('.lock')) continue;
    const dir = path.join(registry, name);
    try {
      // Not waiting for a lock another run holds (that run looks at the folder itself): start-up stays quick.
      locked(
        dir,
        () => {
          const { live, point } = markers(dir);
          if (live > 0) return;
          if (point !== undefined) removePoint(point);
          rmSync(dir, { recursive: true, force: true });
        },
        0,
      );
    } catch {
      // its lock is held, or it is not ours to remove: the next start looks again
    }
  }
}

/** The home folder the password database names for this user (not $HOME); undefined when there is none. */
function accountHome(): string | undefined {
  try {
    const home = os.userInfo().homedir;
    return home && home !== '/' && path.isAbsolute(home) ? home : undefined;
  } catch {
    return undefined;
  }
}

/** Makes `dir` (0700) and checks that it is a folder of the user's own that nobody else may enter. */
function privateRegistry(dir: string, uid: number): string {
  makePrivateFolderSync(dir);
  const info = lstatSync(dir);
  if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0)
    throw new Error(
      `sandbox: ${dir} must be a folder of the user's own with mode 0700 (remove it to have it made again)`,
    );
  return dir;
}

/**
 * Counts the markers of live processes and drops those of processes that are gone: no process with the marker's pid,
 * or one started at another time (the pid was used again). Says which point the markers name.
 */
function markers(dir: string): { live: number; stale: number; point?: string } {
  let live = 0;
  let stale = 0;
  let point: string | undefined;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { live, stale };
  }
  for (const name of names) {
    const file = path.join(dir, name);
    if (markerLive(name)) live++;
    else {
      stale++;
      point ??= readPoint(file);
      rmSync(file, { force: true });
    }
  }
  return { live, stale, point };
}

/** Whether the process that left marker `<pid>-<start time>-<n>` (or an older `<pid>-<n>`) still runs. */
function markerLive(name: string): boolean {
  const parts = name.split('-');
  const pid = Number(parts[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return false;
  const recorded = parts.length === 3 ? parts[1] : '0';
  return recorded === '0' || startTimeOf(pid) === recorded;
}

/** The point a marker file names (an absolute path), if it can be read. */
function readPoint(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    return path.isAbsolute(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` holding the lock of a marker folder (an exclusive mkdir beside it), waiting up to `waitMs` for it
 * (then an error).
 */
function locked<T>(dir: string, work: () => T, waitMs = LOCK_WAIT_MS): T {
  const lock = `${dir}.lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      break;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      if (lockAge(lock) > STALE_LOCK_MS) removeLock(lock);
      else if (Date.now() > deadline) throw new Error(`sandbox: the mount point lock ${lock} is held by another run`);
      else pause(1);
    }
  }
  try {
    return work();
  } finally {
    removeLock(lock);
  }
}

/** A lock is an empty folder: rmdir, not a recursive removal (which lstats, unlinks and reads it first: ~2 ms). */
function removeLock(lock: string): void {
  try {
    rmdirSync(lock);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    // Not empty (not one of ours as made): removed whole, as before.
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockAge(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}

/** A blocking pause for the lock's short waits (mountArgs is synchronous; a lock is held for microseconds). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
