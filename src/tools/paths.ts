/**
 * Resolves the paths tools and permission checks talk about the way the file system will: `~`
 * expanded, relative paths against the working folder, and symlinks resolved with realpath (for
 * a path that does not exist yet, through its nearest existing parent). `resolvedPath` resolves
 * as the kernel does, each link followed before the `..` after it (`link/../f` is the `f` beside
 * the link's target); `expandPath` folds `..` as text, as tools that take a path (Read, Write) do.
 */
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `~` and `~/x` expanded, then resolved against `cwd` (no file system access). */
export function expandPath(cwd: string, target: string): string {
  const home = process.env.HOME || os.homedir();
  if (target === '~') return home;
  if (target.startsWith('~/')) return path.join(home, target.slice(2));
  return path.resolve(cwd, target);
}

/** The real location of `target`: symlinks resolved, also when it (or its tail) does not exist yet. */
export function realPath(target: string): string {
  let existing = path.resolve(target);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync.native(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return path.join(existing, ...rest);
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/**
 * `target` (relative to `cwd`, `~` expanded) as the kernel resolves it: a symlink is followed
 * before a `..` after it is applied, so `link/../f.txt` is the f.txt beside the link's target,
 * not beside the link. A tail that does not exist is kept as written, its `..` folded.
 */
export function resolvedPath(cwd: string, target: string): string {
  const home = process.env.HOME || os.homedir();
  const full =
    target === '~'
      ? home
      : target.startsWith('~/')
        ? `${home}/${target.slice(2)}`
        : path.isAbsolute(target)
          ? target
          : `${cwd}/${target}`;
  try {
    return realpathSync.native(full);
  } catch {
    // Component by component: the existing part as the kernel resolves it, the rest as written.
    const parts = full.split('/');
    let current = '/';
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        current = path.dirname(current);
        continue;
      }
      const next = path.join(current, part);
      try {
        current = realpathSync.native(next);
      } catch {
        return path.join(next, ...parts.slice(i + 1));
      }
    }
    return current;
  }
}
