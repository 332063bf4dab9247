/**
 * What a sandboxed run's `release` mends after it ended (sandbox.ts): what no mount could keep as it was.
 */
import { lstatSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import type { KeptLink } from './mounts.ts';

/** Removes a protected file a sandboxed command created (it could not be mounted while missing), saying so. */
export function removePlanted(file: string, warn: (line: string) => void): void {
  if (!lstatSync(file, { throwIfNoEntry: false })) return;
  rmSync(file, { force: true, recursive: true });
  warn(`sandbox: removed ${file}, which a sandboxed command created (it would point git at other config and hooks)`);
}

/**
 * Puts back each repository's `.git` link that a sandboxed command replaced or removed (no mount can keep a link in
 * place), saying so: git outside would otherwise take the config and hooks of a git folder of the command's making.
 */
export function restoreLinks(links: KeptLink[], warn: (line: string) => void): void {
  for (const { link, target } of links) {
    let now: string | undefined;
    try {
      now = readlinkSync(link);
    } catch {
      // removed, or replaced by something that is not a link
    }
    if (now === target) continue;
    rmSync(link, { force: true, recursive: true });
    symlinkSync(target, link);
    warn(`sandbox: put back ${link} -> ${target}, which a sandboxed command changed (git outside would follow it)`);
  }
}
