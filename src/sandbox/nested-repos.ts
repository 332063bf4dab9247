/**
 * The repositories below the top of the folders a sandboxed command may write: a folder of clones given as the
 * working folder (`--cwd ~/code`), a vendored clone, a project's `tools/some-repo`. git outside the sandbox (the
 * user's next `git status` there, an editor's) runs what their `.git` holds (hooks, `core.fsmonitor`,
 * `core.hooksPath`): mounts.ts keeps each one's `.git` read-only and the folders down to it in place, as it keeps a
 * submodule's (see `protectCheckout`).
 *
 * Found by a bounded walk, as Claude Code's sandbox runtime bounds its search for such paths: at most `MAX_DEPTH`
 * folders down, at most `MAX_FOLDERS` folders in all per session start, links not followed, and none of the folders
 * no one runs git in (`node_modules` and the like, a repository's own `.git`). What lies beyond the bounds is not
 * searched: a repository there is writable; `onLimit` says so once per root when the folder count stopped the walk
 * (not for the depth: docs/security.md). Bare repositories (a mirror, a dotfiles repository) are found by their
 * shape and protected whole.
 */
import { readdirSync, realpathSync, type Dirent } from 'node:fs';
import { isInside } from '../process/paths.ts';
import path from 'node:path';

/** How deep below a root the walk looks (the root's children are depth 1). */
export const MAX_DEPTH = 6;
/** How many folders the walk reads under one root at most. */
export const MAX_FOLDERS = 20_000;
/** Folders not walked into: no one runs git in them, and they are large. */
const SKIPPED = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__', '.venv', '.tox', '.cache']);

/** What the walk found under one root. */
export interface NestedRepos {
  /** The folders (absolute) holding a `.git` (a folder or a file), the root itself excluded. */
  checkouts: string[];
  /** Bare repositories (a folder holding `HEAD`, `objects/` and `refs/`: a mirror, a dotfiles repository). */
  bare: string[];
  /** True when the walk stopped at `MAX_FOLDERS` before it had read every folder within `MAX_DEPTH`. */
  truncated: boolean;
}

/**
 * The repositories below `root` (its own `.git` aside), by a bounded breadth-first walk: the folders down to
 * `depth` below it are read, each once, links not followed.
 */
export function nestedRepos(
  root: string,
  limits = { depth: MAX_DEPTH, folders: MAX_FOLDERS },
  unseen: ReadonlySet<string> = new Set(),
): NestedRepos {
  const checkouts: string[] = [];
  const bare: string[] = [];
  let level = [root];
  let read = 0;
  for (let depth = 0; depth <= limits.depth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (read++ >= limits.folders) return { checkouts, bare, truncated: true };
      const list = entries(dir);
      if (dir !== root && list.some((entry) => entry.name === '.git')) checkouts.push(dir);
      if (dir !== root && isBare(list)) {
        bare.push(dir); // protected whole: nothing below it to look for
        continue;
      }
      if (depth === limits.depth) continue;
      for (const entry of list) {
        if (!entry.isDirectory() || SKIPPED.has(entry.name)) continue;
        const child = path.join(dir, entry.name);
        if (!unseen.has(child)) next.push(child);
      }
    }
    level = next;
  }
  return { checkouts, bare, truncated: false };
}

/** A bare repository's shape, as git recognizes one: `HEAD`, and the `objects` and `refs` folders. */
function isBare(list: Dirent[]): boolean {
  const has = (name: string, folder: boolean) =>
    list.some((entry) => entry.name === name && (folder ? entry.isDirectory() : !entry.isDirectory()));
  return has('HEAD', false) && has('objects', true) && has('refs', true);
}

/** The repositories below each of `roots`; `onLimit` hears of a root whose walk stopped at its folder bound. */
export function nestedReposUnder(
  roots: string[],
  onLimit: (root: string) => void = () => {},
  unseen: ReadonlySet<string> = new Set(),
): { checkouts: string[]; bare: string[] } {
  const checkouts = new Set<string>();
  const bare = new Set<string>();
  for (const root of roots) {
    const found = nestedRepos(root, undefined, unseen);
    if (found.truncated) onLimit(root);
    for (const checkout of found.checkouts) checkouts.add(checkout);
    for (const repository of found.bare) bare.add(repository);
  }
  return { checkouts: [...checkouts], bare: [...bare] };
}

/**
 * The folders of `hidden` a command sees empty (mounts.ts hides them whole: agentpipe's home, `denyRead`), as
 * given and as their real paths, for the walk to leave out: no repository below them can be written. Not one that
 * is a writable folder itself, or that holds, or lies inside, a path kept visible (`allowRead`, a CLI's own home):
 * those are walked as before. A writable folder inside one is a root of its own, walked from there.
 */
export function unseenFolders(hidden: string[], allowRead: string[], writable: string[]): Set<string> {
  const roots = new Set(writable.map(real));
  const kept = allowRead.map(real).filter((dir): dir is string => dir !== undefined);
  const unseen = new Set<string>();
  for (const dir of hidden) {
    const resolved = real(dir);
    if (resolved === undefined || roots.has(resolved)) continue;
    if (kept.some((keep) => isInside(resolved, keep) || isInside(keep, resolved))) continue;
    unseen.add(dir).add(resolved);
  }
  return unseen;
}

function real(target: string): string | undefined {
  try {
    return realpathSync.native(target);
  } catch {
    return undefined;
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // unreadable or gone: nothing of it for git outside to run either
  }
}
