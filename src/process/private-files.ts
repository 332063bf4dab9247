/**
 * Files that hold a session (transcripts and their locks, debug logs, the scripts the library
 * writes for a child CLI) are for their owner only, as Claude Code keeps its own: created 0600 in
 * folders created 0700, and a file that already exists with wider permissions (written by an older
 * version, or under another umask) is tightened when agentpipe opens it (issue 27). Folders that
 * already exist are left as they are: they may be the user's own (a `--debug-file` beside other
 * files), except the ones agentpipe names for itself, which callers tighten with `tightenFolderSync`.
 * The callback API, not node:fs/promises: a print run writes its transcript, and that module loads
 * ~20 others at start-up.
 */
import { chmodSync, fchmod, fchmodSync, fstat, fstatSync, mkdir, mkdirSync, statSync } from 'node:fs';

/** Mode of a private file. */
export const PRIVATE_FILE = 0o600;
/** Mode of a private folder. */
export const PRIVATE_FOLDER = 0o700;

/** True when a mode lets the group or others in. */
const shared = (mode: number) => (mode & 0o077) !== 0;

/** Creates `dir` and its missing parents, each 0700. */
export function makePrivateFolder(dir: string): Promise<void> {
  return new Promise((resolve, reject) =>
    mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER }, (error) => (error ? reject(error) : resolve())),
  );
}

/** `makePrivateFolder`, synchronously. */
export function makePrivateFolderSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER });
}

/**
 * Makes an open file private (0600) when its mode lets others in: on the descriptor, so a swapped path is not hit.
 * Never fails: a file this user may write but not chmod (another owner's) is written all the same.
 */
export function tightenFile(fd: number): Promise<void> {
  return new Promise((resolve) =>
    fstat(fd, (error, stats) => {
      if (error || !shared(stats.mode)) return resolve();
      fchmod(fd, PRIVATE_FILE, () => resolve());
    }),
  );
}

/** `tightenFile`, synchronously. */
export function tightenFileSync(fd: number): void {
  try {
    if (shared(fstatSync(fd).mode)) fchmodSync(fd, PRIVATE_FILE);
  } catch {
    // Not ours to change.
  }
}

/**
 * Makes a folder agentpipe names for itself (a transcripts folder) private when its owner is this user and its mode
 * lets others in. Never throws: a folder it cannot change keeps its files private all the same.
 */
export function tightenFolderSync(dir: string): void {
  try {
    const stats = statSync(dir);
    const mine = process.getuid === undefined || stats.uid === process.getuid();
    if (stats.isDirectory() && mine && shared(stats.mode)) chmodSync(dir, PRIVATE_FOLDER);
  } catch {
    // Not there, or not ours to change.
  }
}
