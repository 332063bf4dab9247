/**
 * Scratch folders of a test process, removed when it exits (however the test ended). `fixedBase`
 * folders live under /tmp whatever TMPDIR says: golden tests whose token counts depend on the
 * length of the working folder's path stay the same on every machine.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
 * A fresh folder outside the temporary folder (under the checkout's ignored `tmp/`), removed at
 * exit: for programs that refuse to keep state under it (codex will not create its sandbox's
 * helper binaries in a CODEX_HOME under $TMPDIR or /tmp, and its sandboxed patches then fail).
 */
export function scratchDirOutsideTemp(prefix: string): string {
  const base = path.resolve(import.meta.dirname, '../../tmp');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(path.join(base, prefix));
  made.push(dir);
  return dir;
}
