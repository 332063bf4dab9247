/** Walks a folder for Glob and Grep, skipping version-control and dependency folders. */
// A namespace import: a named `glob` import would fail to link on Node < 22 before runtime-check.ts can explain.
import * as fsp from 'node:fs/promises';
import path from 'node:path';

const SKIP = ['**/.git/**', '**/node_modules/**'];

/** Files under `root` matching `pattern` (relative), newest first, at most `max`, none that `denied` protects. */
export async function findFiles(
  root: string,
  pattern: string,
  signal: AbortSignal,
  max: number,
  denied?: (file: string) => string | undefined,
): Promise<{ files: string[]; truncated: boolean }> {
  const exclude = SKIP.filter((skip) => !pattern.includes(skip.split('/')[1]!));
  const found: Array<{ file: string; mtime: number }> = [];
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
    const info = await fsp.stat(file).catch(() => undefined);
    if (info?.isFile()) found.push({ file, mtime: info.mtimeMs });
    if (found.length > 10 * max) break;
  }
  found.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
  return { files: found.slice(0, max).map((f) => f.file), truncated: found.length > max };
}

/** True when `folder`, its links resolved, is `root` or inside it. */
async function folderUnder(folder: string, root: string): Promise<boolean> {
  // Gone or unreadable: not under the root.
  const real = await fsp.realpath(folder).catch(() => undefined);
  return real !== undefined && (real === root || real.startsWith(root + path.sep));
}
