/**
 * Scratch folders of a test process, removed when it exits (however the test ended). `fixedBase`
 * folders live under /tmp whatever TMPDIR says: golden tests whose token counts depend on the
 * length of the working folder's path stay the same on every machine.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed at exit; under /tmp when `fixedBase` (and /tmp is there), else under TMPDIR. */
export function scratchDir(prefix: string, fixedBase = false): string {
  const base = fixedBase && process.platform !== 'win32' ? '/tmp' : os.tmpdir();
  const dir = mkdtempSync(path.join(base, prefix));
  made.push(dir);
  return dir;
}

/**
 * A fresh folder in memory (Linux's /dev/shm, when it is there), removed at exit, else one under TMPDIR: for a test
 * that measures CPU time, not the disk, where each `result` fsyncs the transcript (4,000 prompts waited ~20 s for the
 * disk under the suite's load). Not for a sandboxed run: the OS sandbox gives its commands a /dev of their own.
 */
export function memoryDir(prefix: string): string {
  if (process.platform !== 'linux' || !existsSync('/dev/shm')) return scratchDir(prefix);
  const dir = mkdtempSync(path.join('/dev/shm', prefix));
  made.push(dir);
  return dir;
}

/**
 * A fresh folder outside the temporary folder, removed at exit: for programs that refuse to keep state under it
 * (codex will not create its sandbox's helper binaries in a CODEX_HOME under $TMPDIR or /tmp, and its sandboxed
 * patches then fail; Gemini CLI ignores a system-defaults file with a world-writable folder above it). Under the
 * checkout's ignored `tmp/`, or under the user's own ~/.cache when the checkout itself is in a temp or
 * world-writable folder (a CI clone in /tmp).
 */
export function scratchDirOutsideTemp(prefix: string): string {
  const checkout = path.resolve(import.meta.dirname, '../../tmp');
  const base = sharedFolder(checkout) ? path.join(os.homedir(), '.cache', 'agentpipe-tests') : checkout;
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(path.join(base, prefix));
  made.push(dir);
  return dir;
}

/** Whether `dir` is in the temp folder or under a folder anyone may write. */
function sharedFolder(dir: string): boolean {
  for (const temp of new Set([os.tmpdir(), '/tmp'])) if (dir === temp || dir.startsWith(temp + path.sep)) return true;
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o002) !== 0) return true;
    if (path.dirname(d) === d) return false;
  }
}
