/** Finding a program the way a shell does: a path as given, a bare name on PATH. */
import { accessSync, constants, realpathSync } from 'node:fs';
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

/** True when `file`'s folder, links resolved, is inside a folder the model's commands may write. */
function modelWrote(file: string): boolean {
  if (!writableFolders.size) return false;
  let folder: string;
  try {
    folder = realpathSync(path.dirname(file));
  } catch {
    return false;
  }
  for (const dir of writableFolders) if (isInside(folder, dir)) return true;
  return false;
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
  const candidates = named
    ? [path.resolve(file)]
    : (env.PATH ?? '')
        .split(path.delimiter)
        .filter((dir) => path.isAbsolute(dir))
        .map((dir) => path.join(dir, file));
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
