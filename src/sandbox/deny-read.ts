/**
 * The paths of the session's `Read(...)` deny rules, hidden from the commands the model runs (as
 * Claude Code's sandbox hides its deny-read paths): the check keeps a command from naming such a
 * file, and the sandbox keeps one it could not see through (`python3 script.py`, a program that
 * opens it itself) from reading it. mounts.ts hides each as it hides a credential store: an empty
 * read-only file over a file (`/dev/null`), an empty read-only folder over a folder.
 *
 * A rule is a path (`./.env`, `~/.ssh/**`, `//etc/secret`), relative to the working folder: one
 * without glob characters hides what it names, `dir/**` the folder; a rule with a glob elsewhere
 * (`**\/.env`, `./config/*.pem`) hides the files that match it when the command starts (its walk
 * skips node_modules and git's object store).
 */
import { globSync } from 'node:fs';
import path from 'node:path';
import { expandHome } from './mounts.ts';

/** Folders a glob rule's walk does not enter (their size, not their secrets: a rule naming them hides them). */
const NOT_WALKED = ['**/node_modules/**', '**/.git/objects/**'];

/** The paths `specifiers` (Read deny rules' specifiers) name now, to hide; `cwd` and `home` resolve them. */
export function readDeniedPaths(specifiers: readonly string[], cwd: string, home: string): string[] {
  const out: string[] = [];
  for (const specifier of specifiers) {
    if (specifier === '' || specifier === '*') continue;
    const pattern = expandHome(specifier.startsWith('//') ? specifier.slice(1) : specifier, cwd, home);
    const parts = pattern.split(path.sep);
    const glob = parts.findIndex((part) => /[*?[{]/.test(part));
    if (glob === -1) out.push(pattern);
    else if (glob === parts.length - 1 && parts[glob] === '**') out.push(parts.slice(0, glob).join(path.sep) || '/');
    else out.push(...globMatches(pattern));
  }
  return [...new Set(out)];
}

/** The paths a glob rule matches now (path.matchesGlob's syntax, as the permission check reads the rule). */
function globMatches(pattern: string): string[] {
  try {
    return globSync(pattern, { exclude: NOT_WALKED });
  } catch {
    // A start folder that cannot be read: nothing in it for a command to read either.
    return [];
  }
}
