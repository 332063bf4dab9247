/** Walks a folder for Glob and Grep, skipping version-control and dependency folders. */
// A namespace import: a named `glob` import would fail to link on Node < 22 before runtime-check.ts can explain.
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { hasProcFd } from '../opened-path.ts';
import { NotReadableError, openJudged } from '../regular-file.ts';

const SKIP = ['**/.git/**', '**/node_modules/**'];

/** How Glob searches: its abort signal, its limit, the files it leaves out, and where its folder was judged to be. */
export interface Search {
  signal: AbortSignal;
  max: number;
  /** A Read deny rule's verdict on a file (undefined: not protected). */
  denied?: (file: string) => string | undefined;
  /** The root's real path when the call was judged (judged-path.ts): the search is there, or refused. */
  judged?: string;
}

interface Found {
  files: string[];
  truncated: boolean;
  total: number;
  complete: boolean;
}

/**
 * Files under `root` matching `pattern` (relative), oldest first as Claude Code's Glob lists them (by modification
 * time, ties by path), at most `max`, none that `denied` protects. `total` counts every match when `complete`, else
 * the matches seen before the walk stopped (at 10 times `max`). Given `judged`, the root is opened and must be the
 * folder judged (a link swapped in since is refused), and the walk goes through the opened folder (its `/proc/self/fd`
 * path) where it can, so a swap during the walk leads nowhere else either.
 */
export async function findFiles(root: string, pattern: string, search: Search): Promise<Found> {
  const { judged } = search;
  let opened: FileHandle | undefined;
  if (judged !== undefined) {
    try {
      opened = await openJudged(root, judged, 'search');
    } catch (error) {
      if (NotReadableError.isInstance(error)) throw error;
      // Missing or unreadable: nothing is found there.
      return { files: [], truncated: false, total: 0, complete: true };
    }
  }
  try {
    const walked = opened && hasProcFd() ? `/proc/self/fd/${opened.fd}` : root;
    const realRoot = judged ?? (await fsp.realpath(root).catch(() => path.resolve(root)));
    return await walk({ root, walked, realRoot }, pattern, search);
  } finally {
    await opened?.close();
  }
}

/** The walk of `findFiles`: `walked` is `root` or the opened root's descriptor path; names are given under `root`. */
async function walk(
  { root, walked, realRoot }: { root: string; walked: string; realRoot: string },
  pattern: string,
  { signal, max, denied }: Search,
): Promise<Found> {
  const exclude = SKIP.filter((skip) => !pattern.includes(skip.split('/')[1]!));
  const found: Array<{ file: string; mtime: bigint }> = [];
  let complete = true;
  const folders = new Map<string, boolean>();
  for await (const entry of fsp.glob(pattern, {
    cwd: walked,
    exclude: (p: string) => exclude.some((e) => path.matchesGlob(p, e)),
  })) {
    signal.throwIfAborted();
    const file = path.resolve(root, entry);
    if (denied?.(file)) continue;
    const at = path.resolve(walked, entry);
    // A literal segment (`{link,src}/*` expands to `link/*`) walks through a symbolic link: what is
    // listed must be in a folder that really is under the root, as the permission check judged it.
    const folder = path.dirname(at);
    if (!folders.has(folder)) folders.set(folder, await folderUnder(folder, realRoot));
    if (!folders.get(folder)) continue;
    // Gone or unreadable since it was listed: skipped.
    const info = await fsp.stat(at, { bigint: true }).catch(() => undefined);
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
