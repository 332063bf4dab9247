/** Walks a folder for Glob and Grep, skipping version-control and dependency folders. */
// A namespace import: a named `glob` import would fail to link on Node < 22 before runtime-check.ts can explain.
import * as fsp from 'node:fs/promises';
import path from 'node:path';

const SKIP = ['**/.git/**', '**/node_modules/**'];

/**
 * Files under `root` matching `pattern` (relative), oldest first as Claude Code's Glob lists them (by modification
 * time, ties by path), at most `max`, none that `denied` protects. `total` counts every match when `complete`, else
 * the matches seen before the walk stopped (at 10 times `max`).
 */
export async function findFiles(
  root: string,
  pattern: string,
  signal: AbortSignal,
  max: number,
  denied?: (file: string) => string | undefined,
): Promise<{ files: string[]; truncated: boolean; total: number; complete: boolean }> {
  const exclude = SKIP.filter((skip) => !pattern.includes(skip.split('/')[1]!));
  const found: Array<{ file: string; mtime: bigint }> = [];
  let complete = true;
  const realRoot = await fsp.realpath(root).catch(() => path.resolve(root));
  const folders = new Map<string, boolean>();
  for await (const entry of fsp.glob(pattern, {
    cwd: root,
    exclude: (p: string) => exclude.some((e) => path.matchesGlob(p, e)),
  })) {
    signal.throwIfAborted();
    const file = path.resolve(root, entry);
    if (denied?.(file)) continue;
    // A literal segment (`{link,src}/*` expands to `link/*`) walks through a symbolic link: what is
    // listed must be in a folder that really is under the root, as the permission check judged it.
    const folder = path.dirname(file);
    if (!folders.has(folder)) folders.set(folder, await folderUnder(folder, realRoot));
    if (!folders.get(folder)) continue;
    // Gone or unreadable since it was listed: skipped.
    const info = await fsp.stat(file, { bigint: true }).catch(() => undefined);
    if (info?.isFile()) found.push({ file, mtime: info.mtimeNs });
    if (found.length > 10 * max) {
      complete = false;
      break;
    }
  }
  const key = (file: string) => file.toUpperCase();
  found.sort((a, b) =>
    a.mtime !== b.mtime
      ? a.mtime < b.mtime
        ? -1
        : 1
      : key(a.file) < key(b.file)
        ? -1
        : key(a.file) > key(b.file)
          ? 1
          : 0,
  );
  return {
    files: found.slice(0, max).map((f) => f.file),
    truncated: found.length > max,
    total: found.length,
    complete,
  };
}

/** True when `folder`, its links resolved, is `root` or inside it. */
async function folderUnder(folder: string, root: string): Promise<boolean> {
  // Gone or unreadable: not under the root.
  const real = await fsp.realpath(folder).catch(() => undefined);
  return real !== undefined && (real === root || real.startsWith(root + path.sep));
}

/** `file` relative to the working folder when it is inside it (as Claude Code's Glob and Grep show it), else as is. */
export function relativeToCwd(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  return relative && !outside ? relative : file;
}
