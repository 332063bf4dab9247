/**
 * Mount points for protected folders that do not exist (`.agentpipe/`, `.claude/` in a writable
 * folder): made for a run, mounted read-only and empty inside, removed once no run of any process
 * uses them.
 *
 * Why it needs care: several agentpipe processes often run commands in one folder at once (a
 * cluster's workers, parallel tests, two sessions). On the host, `rmdir` of a folder that is a
 * mount point in another mount namespace succeeds and detaches that mount there (Linux 3.18 and
 * later): one process removing "its" point after its run would make another process's bubblewrap
 * fail ("Can't find source path .../.claude") or, worse, lift the protection of a command still
 * running, which could then create `.claude/settings.json` on the host.
 *
 * So each run claims a point by making a marker folder inside it (on the host; inside the sandbox
 * the point is covered by an empty read-only folder, so the command never sees it). A folder that
 * holds a marker cannot be removed (ENOTEMPTY), whoever tries: the kernel is the lock. A run's
 * release removes its own marker and then tries `rmdir` on the point, which only the last user
 * manages. A marker left by a process that was killed (same PID namespace, process gone) is removed
 * by the next release; one whose owner cannot be told stays, and so does the point (an empty
 * folder: safe, only untidy).
 *
 * A protected folder that holds nothing but markers, or nothing at all, is treated as a point: an
 * empty `.claude/` of the user's is therefore removed after a run, which loses no data.
 */
import { mkdirSync, readdirSync, readlinkSync, rmdirSync } from 'node:fs';
import path from 'node:path';

const MARKER = '.agentpipe-sandbox-point-';

/** This process's PID namespace (markers of another namespace are never judged stale). */
const pidNamespace = (() => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();
let claims = 0;

/** True when `dir` holds nothing but markers of runs (a point, not a folder of the user's). */
export function isPoint(dir: string): boolean {
  try {
    return readdirSync(dir).every((name) => name.startsWith(MARKER));
  } catch {
    return false;
  }
}

/**
 * Claims the point `target` for one run: makes it when missing and puts this run's marker in it.
 * Returns the marker (for `releasePoint`), or undefined when the folder cannot be made here (then a
 * command, which has no more rights inside than agentpipe outside, cannot make it either).
 */
export function claimPoint(target: string): string | undefined {
  const marker = path.join(target, `${MARKER}${pidNamespace}-${process.pid}-${++claims}`);
  // Another run's release may remove the point between the two mkdirs: then make it again.
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      mkdirSync(target, { mode: 0o755 });
    } catch (error) {
      if (code(error) !== 'EEXIST') return undefined;
    }
    try {
      mkdirSync(marker, { mode: 0o700 });
      return marker;
    } catch (error) {
      if (code(error) !== 'ENOENT') return undefined;
    }
  }
  throw new Error(`sandbox: could not claim the mount point ${target} (removed again and again meanwhile)`);
}

/** The run that claimed `marker` ended: its marker goes, and the point too when no run uses it any more. */
export function releasePoint(marker: string): void {
  const point = path.dirname(marker);
  tryRmdir(marker);
  if (tryRmdir(point) !== 'ENOTEMPTY') return;
  let removedStale = false;
  for (const name of safeReaddir(point))
    if (isStale(name)) removedStale = tryRmdir(path.join(point, name)) === undefined || removedStale;
  if (removedStale) tryRmdir(point);
}

/** A marker of this PID namespace whose process is gone. */
function isStale(name: string): boolean {
  const match = /^(.+)-(\d+)-\d+$/.exec(name.slice(MARKER.length));
  if (!name.startsWith(MARKER) || !match || match[1] !== pidNamespace) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return code(error) === 'ESRCH';
  }
}

/** rmdir, returning the error code (undefined on success). */
function tryRmdir(dir: string): string | undefined {
  try {
    rmdirSync(dir);
    return undefined;
  } catch (error) {
    return code(error) ?? 'error';
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
