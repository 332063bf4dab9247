/**
 * Resolves the paths tools and permission checks talk about the way the file system will: `~`
 * expanded, relative paths against the working folder, `..` folded, and symlinks resolved with
 * realpath (for a path that does not exist yet, through its nearest existing parent).
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

/** True when `file` is `dir` or inside it (both already resolved). */
export function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
