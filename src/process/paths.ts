/**
 * Path arithmetic every layer needs and none owns: whether one resolved path lies inside another
 * (the permission checks in tools/ and the sandbox's mounts decide on it).
 */
import path from 'node:path';

/**
 * True when `file` is `dir` or inside it (both already resolved: no `~`, no links followed here). A name that only
 * begins with two dots (`..cache`) is inside; `..` and `../x` are not.
 */
export function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
