/**
 * The mount-point registry of earlier agentpipe versions, read so that a process of one of them still
 * running beside this version keeps its points: `<home>/.cache/agentpipe/points-<host>/<hash of the
 * point>/<pid>-<start time>-<n>` (a folder per point, a file per claim), or `agentpipe-points-<uid>` in
 * the temp folder where no home could hold it. This version never writes there (points.ts).
 */
import { lstatSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processRuns } from '../process/alive.ts';

/** Where an earlier version keeps its claims, for the user whose account's home is `home`. */
export function legacyRegistry(home: string | undefined): string {
  return home === undefined
    ? path.join(os.tmpdir(), `agentpipe-points-${process.getuid?.() ?? 0}`)
    : path.join(home, '.cache', 'agentpipe', `points-${hostName()}`);
}

let host: string | undefined;
/** The machine's name (one uname per process: points.ts names its registry with it too). */
export function hostName(): string {
  return (host ??= os.hostname());
}

/** What an earlier version's registry says of a point (see `legacyClaims`). */
export type LegacyClaim = 'live' | 'dead' | undefined;

/**
 * What an earlier version's registry says of points, read once (under this version's lock, per look): `live`, a
 * process of it holds the point now; `dead`, claims were left by processes that are gone (it was a point);
 * undefined, nothing. The registry's folder is listed once: where it is missing or empty (the usual case), no point
 * costs a look of its own. A registry that is not the user's own private folder (one planted in a shared temp
 * folder) is not read.
 */
export function legacyClaims(home: string | undefined): (point: string) => LegacyClaim {
  const registry = legacyRegistry(home);
  let folders: Set<string>;
  try {
    folders = new Set(readdirSync(registry));
  } catch {
    return () => undefined;
  }
  if (folders.size === 0 || !privateToUser(registry)) return () => undefined;
  const known = new Map<string, LegacyClaim>();
  return (point) => {
    if (known.has(point)) return known.get(point);
    const name = pointFolderName(point);
    const claim = folders.has(name) ? claimsIn(path.join(registry, name)) : undefined;
    known.set(point, claim);
    return claim;
  };
}

/** The claims left in one point's folder of the earlier registry. */
function claimsIn(dir: string): LegacyClaim {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  if (!privateToUser(dir)) return undefined;
  if (names.some(markerLive)) return 'live';
  return names.length ? 'dead' : undefined;
}

/** The folder of an earlier version's claims on `point`. */
export function legacyPointFolder(point: string, home: string | undefined): string {
  return path.join(legacyRegistry(home), pointFolderName(point));
}

function pointFolderName(point: string): string {
  return `${fnv1a(point, 0x811c9dc5)}${fnv1a(point, 0x050c5d1f)}`;
}

function privateToUser(dir: string): boolean {
  try {
    const info = lstatSync(dir);
    return info.isDirectory() && info.uid === (process.getuid?.() ?? 0) && (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Whether the process that left marker `<pid>-<start time>-<n>` (or an older `<pid>-<n>`) still runs. */
function markerLive(name: string): boolean {
  const parts = name.split('-');
  return processRuns(Number(parts[0]), parts.length === 3 ? parts[1] : undefined);
}

/** The earlier version's name for a point's folder: a 32-bit FNV-1a hash of it from `seed`, as 8 hex digits. */
function fnv1a(text: string, seed: number): string {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
