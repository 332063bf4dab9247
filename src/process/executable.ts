/** Finding a program the way a shell does: a path as given, a bare name on PATH. */
import { accessSync, constants, readlinkSync, realpathSync } from 'node:fs';
import { errorCode } from './errors.ts';
import path from 'node:path';
import { isInside } from './paths.ts';

/** Folders the model's commands may write (real paths): no program is found in them. */
const writableFolders = new Set<string>();

/**
 * Marks `folders` as ones the model's commands may write (the working folders, whatever a sandboxed command's mounts
 * make writable), before anything runs there. From then on `findExecutable` finds no program there: a PATH entry that
 * names one by its absolute path (a project's `.venv/bin`, `node_modules/.bin`, direnv's `PATH_add bin`) would have
 * agentpipe run, outside the sandbox, a `git` a command planted there.
 */
export function neverRunFrom(folders: readonly string[]): void {
  for (const folder of folders) {
    try {
      writableFolders.add(realpathSync(folder));
    } catch {
      // A folder that does not exist holds no program; it is marked when a later command's mounts name it again.
    }
  }
}

/** True when `at` (a real path) is, or is inside, a folder the model's commands may write. */
function writable(at: string): boolean {
  for (const dir of writableFolders) if (isInside(at, dir)) return true;
  return false;
}

/** How many links a lookup follows, as the kernel does (ELOOP past it). */
const MAX_LINKS = 40;

/**
 * True when the kernel's way to `file` enters a folder the model's commands may write: its folder, or any folder a link
 * on the way (the program itself a link in `~/bin`, a folder link) leads through. A link there could be re-pointed, a
 * program there replaced, by a sandboxed command. The path is followed link by link from the root, so every place
 * the lookup passes is judged, not only where it ends.
 */
function modelWrote(file: string): boolean {
  if (!writableFolders.size) return false;
  const pending = path.resolve(file).split(path.sep).filter(Boolean);
  let at: string = path.sep;
  let links = 0;
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    if (part === '.' || part === '..') {
      at = part === '..' ? path.dirname(at) : at;
      continue;
    }
    const next = path.join(at, part);
    if (writable(next)) return true;
    let target: string;
    try {
      target = readlinkSync(next);
    } catch (error) {
      // Not a link: the lookup goes on in it. Missing or unreadable: there is nothing to run there.
      if (errorCode(error) !== 'EINVAL') return false;
      at = next;
      continue;
    }
    if (++links > MAX_LINKS) return true;
    if (path.isAbsolute(target)) at = path.sep;
    pending.unshift(...target.split(path.sep).filter(Boolean));
  }
  return false;
}

/**
 * `value` (a PATH) with only the entries a program may be found in: absolute ones, none leading into a folder the
 * model's commands may write. For a process agentpipe starts outside the sandbox (an MCP server whose sandbox is off):
 * its own lookups (`#!/usr/bin/env node`, as npx starts, a program it runs by name) would find what a command planted.
 */
export function outsidePath(value: string): string {
  // Each entry as judged: `/home/u/link/../bin` would have the kernel go through the link (findExecutable's way).
  return searchedEntries(value)
    .filter((dir) => !modelWrote(dir))
    .join(path.delimiter);
}

/**
 * The entries of a PATH a program may be looked up in, each as judged: absolute ones only (an empty entry, `.` or a
 * relative one names whatever folder the search runs in), with `..` and `.` resolved.
 */
function searchedEntries(value: string): string[] {
  return value
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .map((dir) => path.resolve(dir));
}

/**
 * `file` as an executable path: as given when it has a slash, else the first match on PATH's absolute entries. An
 * empty entry (`:/usr/bin`), `.` or a relative one names whatever folder the search runs in, a folder the model can
 * write (the working folder, a repository git runs in): its programs are not found (as Go's exec.LookPath refuses
 * them). Nor is a bare name found in a folder the model's commands may write (`neverRunFrom`); a path given with a
 * slash is taken as given.
 */
export function findExecutable(
  file: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const named = file.includes('/');
  const candidates = named ? [path.resolve(file)] : searchedEntries(env.PATH ?? '').map((dir) => path.join(dir, file));
  for (const candidate of candidates) {
    // A path the user wrote (an MCP server's command, --harness-command, sandbox.bwrapPath) is theirs to choose.
    if (!named && modelWrote(candidate)) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
