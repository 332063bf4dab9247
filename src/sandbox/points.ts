/**
 * Mount points bubblewrap makes in a working folder for a protected folder that is missing
 * (`.agentpipe`, `.claude`: see mounts.ts), shared by every agentpipe process of this user on
 * the machine.
 *
 * A point may be removed only when no run anywhere has it mounted. Removing a folder that is a
 * mount point in another process's mount namespace succeeds and detaches that mount there
 * (Linux 3.18 and later), so the other run's command could then create the folder it protects;
 * and a run that found the point and is about to bind it fails ("bwrap: Can't get type of source").
 * So each process that mounts points lists them in one marker file of its own in a registry,
 * `<registry>/<pid>-<start time>` (a JSON array of absolute paths, replaced whole by a rename), and
 * the process that gives back the last claim of a live process removes the point. Every look at the
 * registry, and every change to it, happens under ONE lock (`<registry>/lock`, an empty file made
 * exclusively): a run's points are all claimed in one locked look (`claimingPoints`), and given back
 * in another. Markers of processes that died (SIGKILL) are dropped on the next look, and the points
 * they name are then claimed as points, not taken for folders of the user's, or removed when no run
 * uses them. A pid used again by another process is not taken for the one that died: the marker
 * names the process's start time.
 *
 * Why one lock and one file per process: on a disk mounted with `discard` (cloud VMs), every folder
 * removed and every non-empty file deleted costs a TRIM, ~1 ms (up to 10 under load). The per-point
 * layout of earlier versions (a lock folder, a marker folder and a marker file for each point) cost
 * about four of them per point and run; this costs one per process (its marker file), besides the
 * points themselves.
 *
 * Earlier versions (`points-<host>`, a folder per point) may still run beside this one: their
 * claims are read (legacy-points.ts), so a point one of them has mounted is neither removed nor
 * taken for a folder of the user's. They do not read this registry: see docs/security.md.
 *
 * The registry is private to the user (mode 0700, checked) and hidden from every sandbox (see
 * `pointRegistryFolders`).
 */
import { errorCode } from '../process/errors.ts';
import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processRuns, startTimeOf } from '../process/alive.ts';
import { makePrivateFolderSync, PRIVATE_FILE } from '../process/private-files.ts';
import { hostName, legacyClaims, legacyRegistry, type LegacyClaim } from './legacy-points.ts';

/** A run's hold on a mount point; give it back with `releasePoint` once the run ended. */
export interface PointClaim {
  point: string;
}

/** What is known of a point when a run looks at it (under the registry's lock). */
export interface PointState {
  /** Another live run has it mounted now. */
  inUse: boolean;
  /** It was a point of ours (claims were left, live or of a process that died). */
  wasPoint: boolean;
}

/** How long the lock may be held before it is taken for one a dead process left. */
const STALE_LOCK_MS = 10_000;
/** How long a run waits for the lock before it gives up with an error. */
const LOCK_WAIT_MS = 30_000;
const LOCK = 'lock';
const TEMP = '.tmp';

/** Points this process holds, with the number of its runs (and sessions) using each. */
const held = new Map<string, { claim: PointClaim; users: number }>();
let releasingAtExit = false;

/** What the other processes' markers say, read under the lock. */
interface Registry {
  dir: string;
  /** Points a live process (not this one) holds. */
  live: Set<string>;
  /** Points named by markers of processes that are gone. */
  dead: Set<string>;
  /** Those markers (and temp files of processes that died while writing one): removed after the look. */
  deadFiles: string[];
  /** What an earlier version's registry says of a point, read in the same look. */
  legacy: (point: string) => LegacyClaim;
}

/** The look in progress (`claimingPoints`): the registry as read under the lock, taken at the first claim. */
let batch: { registry?: Registry; claimed: boolean } | undefined;

/**
 * Runs `work`, whose `claimPoint` calls share one look at the registry: the lock is taken at the first
 * claim that needs it and given back, with this process's marker written once, when `work` returns.
 */
export function claimingPoints<T>(work: () => T): T {
  if (batch) return work();
  const current: { registry?: Registry; claimed: boolean } = { claimed: false };
  batch = current;
  try {
    return work();
  } finally {
    batch = undefined;
    if (current.registry) finishLook(current.registry, current.claimed);
  }
}

/**
 * Looks at `point`; `mount(state)` says whether this run mounts it as a point. If it does, the claim is recorded
 * and returned. Inside `claimingPoints`, the look is that of the batch.
 */
export function claimPoint(point: string, mount: (state: PointState) => boolean): PointClaim | undefined {
  const mine = held.get(point);
  if (mine) {
    // This process holds it already (another run, a session's hold): no other process may remove it meanwhile.
    if (!mount({ inUse: true, wasPoint: true })) return undefined;
    mine.users++;
    return mine.claim;
  }
  return claimingPoints(() => {
    const look = batch!;
    look.registry ??= openLook();
    const legacy = look.registry.legacy(point);
    const inUse = !unused(point, look.registry);
    if (!mount({ inUse, wasPoint: inUse || look.registry.dead.has(point) || legacy === 'dead' })) return undefined;
    const claim = { point };
    held.set(point, { claim, users: 1 });
    look.claimed = true;
    if (!releasingAtExit) process.once('exit', releaseAllPoints);
    releasingAtExit = true;
    return claim;
  });
}

/** Gives back a claim: the point is removed if no live run holds it any more (and it is empty). */
export function releasePoint(claim: PointClaim): void {
  releasePoints([claim]);
}

/** Gives back claims, in one look at the registry. */
export function releasePoints(claims: PointClaim[]): void {
  const gone: string[] = [];
  for (const claim of claims) {
    const mine = held.get(claim.point);
    if (!mine || --mine.users > 0) continue;
    held.delete(claim.point);
    gone.push(claim.point);
  }
  if (gone.length) giveBack(gone);
}

/** Gives back every point this process holds (it exits). */
function releaseAllPoints(): void {
  const all = [...held.keys()];
  held.clear();
  if (all.length) giveBack(all);
}

/** Under the lock: removes those of `points` no one else holds, then records what this process still holds. */
function giveBack(points: string[]): void {
  const registry = openLook();
  for (const point of points) if (unused(point, registry)) removePoint(point);
  finishLook(registry, true);
}

/** No other live process holds `point`, nor a process of an earlier version. */
function unused(point: string, registry: Registry): boolean {
  return !registry.live.has(point) && registry.legacy(point) !== 'live';
}

/** Takes the lock and reads every marker. */
function openLook(): Registry {
  const dir = pointRegistry();
  lock(dir);
  try {
    return readRegistry(dir);
  } catch (error) {
    unlock(dir);
    throw error;
  }
}

/**
 * Ends a look: the points of processes that died that no one holds now are removed with their markers, this
 * process's marker is written when its claims changed, and the lock is given back.
 */
function finishLook(registry: Registry, changed: boolean): void {
  try {
    for (const point of registry.dead) if (!held.has(point) && unused(point, registry)) removePoint(point);
    for (const file of registry.deadFiles) rmSync(file, { force: true });
    if (changed) writeOwnMarker(registry.dir);
  } finally {
    unlock(registry.dir);
  }
}

/** The name of this process's marker: `<pid>-<start time>` ('0' where /proc does not say). */
let ownName: string | undefined;
function ownMarker(): string {
  return (ownName ??= `${process.pid}-${startTimeOf(process.pid) ?? '0'}`);
}

/** Writes this process's marker (the points it holds) whole, by a rename; removes it when it holds none. */
function writeOwnMarker(dir: string): void {
  const file = path.join(dir, ownMarker());
  if (held.size === 0) {
    rmSync(file, { force: true });
    return;
  }
  writeFileSync(file + TEMP, JSON.stringify([...held.keys()]), { mode: PRIVATE_FILE });
  renameSync(file + TEMP, file);
}

function readRegistry(dir: string): Registry {
  const legacy = legacyClaims(accountHome());
  const registry: Registry = { dir, live: new Set(), dead: new Set(), deadFiles: [], legacy };
  for (const name of readdirSync(dir)) {
    const owner = /^(\d+)-(\d+)(\.tmp)?$/.exec(name);
    if (!owner || name === ownMarker() || name === ownMarker() + TEMP) continue;
    const file = path.join(dir, name);
    const alive = processRuns(Number(owner[1]), owner[2]);
    // A live process's temp file is its marker being written: the marker itself says what it holds.
    if (owner[3] && alive) continue;
    if (!alive) registry.deadFiles.push(file);
    if (!owner[3]) for (const point of readPoints(file)) (alive ? registry.live : registry.dead).add(point);
  }
  return registry;
}

/** The points a marker names (absolute paths); none when it cannot be read. */
function readPoints(file: string): string[] {
  try {
    const list: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(list)
      ? list.filter((point): point is string => typeof point === 'string' && path.isAbsolute(point))
      : [];
  } catch {
    return [];
  }
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

/**
 * The user's registry folder, made once per process and checked to be the user's own and private.
 * Every sandbox hides it (a writable temp folder, `allowWrite: ["/tmp"]`, would let a command drop
 * another run's markers, plant its own or hold the lock). It is found from the user's account, never
 * from the environment, so every process of the user on this machine shares it whatever its
 * TMPDIR, HOME or AGENTPIPE_HOME: `<home from the password database>/.cache/agentpipe/mounts-<host>`
 * (the host's name in it, as a home folder may be shared between machines, whose pids differ). Only
 * where that folder cannot be made (no home, a read-only one) is it `agentpipe-mounts-<uid>` in the
 * temp folder, where another user could have made the name first: that fails closed.
 */
let registryDir: string | undefined;
export function pointRegistry(): string {
  if (registryDir !== undefined) return registryDir;
  const uid = process.getuid?.() ?? 0;
  const home = accountHome();
  if (home !== undefined) {
    try {
      registryDir = privateRegistry(path.join(home, '.cache', 'agentpipe', `mounts-${hostName()}`), uid);
    } catch {
      // no usable home folder: the temp folder's, below
    }
  }
  registryDir ??= privateRegistry(path.join(os.tmpdir(), `agentpipe-mounts-${uid}`), uid);
  return registryDir;
}

/**
 * What every sandbox hides of agentpipe's own folders for it: this registry, an older version's when there is one,
 * and the kept sandbox parts (runtime.ts), each by name (a writable folder named in `allowWrite` that holds them,
 * or is one of them, does not make them visible); and the cache folder holding them, whole (agentpipe's own files
 * only), so that one mount hides all of them where nothing kept lies inside (mounts.ts).
 */
export function pointRegistryFolders(): string[] {
  const home = accountHome();
  const folders = [pointRegistry(), legacyRegistry(home)];
  if (home !== undefined) {
    const cache = path.join(home, '.cache', 'agentpipe');
    folders.push(cache, path.join(cache, 'sandbox'));
  }
  return folders.filter((dir) => existsSync(dir));
}

/** The home folder the password database names for this user (not $HOME); undefined when there is none. */
let account: { home: string | undefined } | undefined;
export function accountHome(): string | undefined {
  if (account) return account.home;
  try {
    const home = os.userInfo().homedir;
    account = { home: home && home !== '/' && path.isAbsolute(home) ? home : undefined };
  } catch {
    account = { home: undefined };
  }
  return account.home;
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
 * Takes the registry's lock (an empty file made exclusively: no disk block to free when it goes), waiting up to
 * `LOCK_WAIT_MS` (then an error). A lock older than `STALE_LOCK_MS` was left by a process that died holding it.
 */
function lock(dir: string): void {
  const file = path.join(dir, LOCK);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(file, 'wx', PRIVATE_FILE));
      return;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      if (lockAge(file) > STALE_LOCK_MS) unlock(dir);
      else if (Date.now() > deadline) throw new Error(`sandbox: the mount point lock ${file} is held by another run`);
      else pause(1);
    }
  }
}

function unlock(dir: string): void {
  try {
    unlinkSync(path.join(dir, LOCK));
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

function lockAge(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** A blocking pause for the lock's short waits (mountArgs is synchronous; the lock is held for microseconds). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
