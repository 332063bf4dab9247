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
 *
 * A denied file that a repository tracks has a copy in that repository's object store (`git show
 * HEAD:.env`), as has one committed once and untracked since (the usual way a `.env` leaks): the store is
 * hidden too (`trackedObjectStores`), and git commands that read history then fail in the sandbox: a copy on any
 * branch or tag (loose or in packed-refs), in any reflog entry, or in a stash (one made with `-u` keeps untracked
 * files in its third parent). A copy that no ref, no reflog entry and no stash reaches any more (an unreachable
 * object, until git's gc) is not looked for.
 */
import { globSync, statSync } from 'node:fs';
import path from 'node:path';
import { gitOutside } from './git-outside.ts';
import { expandHome } from './protected-paths.ts';
import { commonDirOf, gitDirOf, readText, repositoryOf } from './git-dir.ts';

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

/** Answers of `trackedObjectStores` per repository, kept until its index or the denied paths change. */
const tracked = new Map<string, { key: string; stores: string[] }>();

/**
 * The object stores (`.git/objects`, a linked worktree's common one, and the stores its alternates borrow from) of the
 * repositories tracking any of `paths`.
 */
export async function trackedObjectStores(paths: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const byRoot = new Map<string, string[]>();
  for (const target of paths) {
    const root = repositoryOf(path.dirname(target));
    if (root) byRoot.set(root, [...(byRoot.get(root) ?? []), path.relative(root, target) || '.']);
  }
  const stores = await Promise.all([...byRoot].map(([root, names]) => storesIfTracked(root, names, env)));
  return [...new Set(stores.flat())];
}

async function storesIfTracked(root: string, names: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const gitDir = gitDirOf(root);
  if (!gitDir) return [];
  const key = [names.join('\0'), ...STATE_FILES.map((file) => stateOf(gitDir, file))].join('\0');
  const cached = tracked.get(root);
  if (cached?.key === key) return cached.stores;
  const pathspecs = ['--', ...names.map((n) => `:(literal)${n}`)];
  // Tracked now, or in any commit a ref or a reflog entry reaches (`.env` committed once, untracked since). Every
  // parent of a merge is walked (`--full-history`): a stash made with `-u` keeps untracked files in its third parent,
  // which git's history simplification skips, as the stash's own tree is the same as its first parent's for them.
  const copied =
    (await gitSays(root, env, ['ls-files', '-z', ...pathspecs])) ||
    (await gitSays(root, env, ['log', '--all', '--reflog', '--full-history', '-1', '--format=%H', ...pathspecs]));
  const stores = copied ? withAlternates(objectStoreOf(gitDir)) : [];
  tracked.set(root, { key, stores });
  return stores;
}

/** What a change of the index, the refs or the reflog changes (the cached answer is asked again). */
const STATE_FILES = ['index', 'HEAD', 'packed-refs', 'refs/heads', 'refs/tags', 'logs/HEAD', 'refs/stash'];

function stateOf(gitDir: string, file: string): string {
  const info = statSync(path.join(gitDir, file), { throwIfNoEntry: false });
  return info ? `${info.mtimeMs}:${info.size}` : '-';
}

/**
 * True when git answers anything (a path it tracks, a commit that holds one), or cannot say (no git, a broken
 * repository, too slow, objects a partial clone lacks and may not fetch): then the copy may be there, and the store
 * is hidden. git runs nothing of the repository's and reaches no remote (git-outside.ts).
 */
async function gitSays(root: string, env: NodeJS.ProcessEnv, args: string[]): Promise<boolean> {
  const run = await gitOutside(root, env, args, 1 << 20);
  return run.error !== undefined || run.code !== 0 || run.stdout.length > 0;
}

/**
 * A store and those it borrows from (`objects/info/alternates`, each line a store, relative to the one naming it;
 * `git clone --shared` or `--reference`), followed through theirs: a committed copy may be only there.
 */
function withAlternates(store: string, seen: string[] = []): string[] {
  if (seen.includes(store)) return seen;
  seen.push(store);
  for (const line of readText(path.join(store, 'info', 'alternates')).split('\n')) {
    const named = line.trim();
    if (named && !named.startsWith('#')) withAlternates(path.resolve(store, named), seen);
  }
  return seen;
}

/** Where a git folder keeps its objects: its own, or its common folder's (a linked worktree's `commondir`). */
function objectStoreOf(gitDir: string): string {
  return path.join(commonDirOf(gitDir), 'objects');
}
