/**
 * The working folder's files as a tape keeps them: at the start of a recording (so `agentpipe replay --verify` can
 * rebuild the folder in a scratch copy) and at its end (so it can compare what the replay left with what the
 * recording left). Text files as text, others as base64, symbolic links as their target; `.git` and `node_modules`
 * are left out, and so are files past the size limits (named in `skipped`).
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { TapeFile } from '../model/tape/format.ts';
import { describeDifference, firstDifference } from '../model/tape/diff.ts';

/** Folders a snapshot does not enter. */
const LEFT_OUT = new Set(['.git', 'node_modules']);
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_TOTAL_BYTES = 32 * 1024 * 1024;
const DEFAULT_MODE = 0o644;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The files under `root` (paths relative, `/`-separated, sorted); `exclude`: absolute paths to leave out. */
export function snapshotFiles(root: string, exclude: string[] = []): { files: TapeFile[]; skipped: string[] } {
  const files: TapeFile[] = [];
  const skipped: string[] = [];
  const excluded = new Set(exclude.map((p) => path.resolve(p)));
  let total = 0;
  const walk = (dir: string, rel: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      return; // unreadable: nothing to keep
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (excluded.has(full)) continue;
      if (entry.isDirectory()) {
        if (!LEFT_OUT.has(entry.name)) walk(full, name);
        continue;
      }
      if (entry.isSymbolicLink()) {
        files.push({ path: name, link: readlinkSync(full) });
        continue;
      }
      if (!entry.isFile()) continue;
      const stat = lstatSync(full);
      if (stat.size > MAX_FILE_BYTES || total + stat.size > MAX_TOTAL_BYTES) {
        skipped.push(name);
        continue;
      }
      total += stat.size;
      const bytes = readFileSync(full);
      const mode = stat.mode & 0o777;
      const file: TapeFile = { path: name, ...contentOf(bytes) };
      if (mode !== DEFAULT_MODE) file.mode = mode;
      files.push(file);
    }
  };
  walk(root, '');
  return { files, skipped };
}

function contentOf(bytes: Buffer): { text: string } | { base64: string } {
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { base64: bytes.toString('base64') };
  }
}

/**
 * Writes `files` under `root` (which must be empty or new). A tape is outside data: a path that would leave `root`
 * is refused, symbolic links are made after every file (so no file is written through one), a link's folder must be
 * inside `root` as it really is, and modes keep their permission bits only.
 */
export function restoreFiles(root: string, files: TapeFile[]): void {
  mkdirSync(root, { recursive: true });
  const real = realpathSync(root);
  const inside = (target: string, file: TapeFile) => {
    if (!target.startsWith(root + path.sep)) throw new Error(`the tape's file ${file.path} is outside its folder`);
  };
  for (const file of files) {
    if (file.link !== undefined) continue;
    const target = path.resolve(root, file.path);
    inside(target, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.text !== undefined ? file.text : Buffer.from(file.base64 ?? '', 'base64'));
    chmodSync(target, (file.mode ?? DEFAULT_MODE) & 0o777);
  }
  for (const file of files) {
    if (file.link === undefined) continue;
    const target = path.resolve(root, file.path);
    inside(target, file);
    mkdirSync(path.dirname(target), { recursive: true });
    const folder = realpathSync(path.dirname(target));
    if (folder !== real && !folder.startsWith(real + path.sep))
      throw new Error(`the tape's link ${file.path} is outside its folder`);
    symlinkSync(file.link, target);
  }
}

/** The first difference between two snapshots, or undefined when they hold the same files. */
export function filesDifference(recorded: TapeFile[], current: TapeFile[]): string | undefined {
  const byPath = new Map(current.map((f) => [f.path, f]));
  for (const file of recorded) {
    const now = byPath.get(file.path);
    if (!now) return `${file.path}: the replay did not leave this file`;
    byPath.delete(file.path);
    const difference = firstDifference(file, now);
    if (difference) return `${file.path}: ${describeDifference(difference)}`;
  }
  const [extra] = byPath.keys();
  return extra === undefined ? undefined : `${extra}: the replay left this file; the recording did not`;
}
