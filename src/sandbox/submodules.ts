/**
 * The submodule checkouts in the folders a sandboxed command may write. git outside the sandbox (the
 * user's next `git status`, an editor's) looks into every gitlink of the index whose folder holds a
 * repository, and runs that repository's config (`core.fsmonitor`): a command that could put a
 * repository of its own in a submodule's folder, or move the folder aside and make one in its place,
 * would have git outside run what it wrote. mounts.ts keeps each checkout's `.git` as it is and the
 * folders down to it in place (see `protectCheckout`); this finds them.
 *
 * The index is read by git (`git ls-files --stage`, which runs nothing of the repository's), and only
 * when its bytes hold a gitlink's mode at all; the answer is kept until the index changes, so a
 * session pays for it once.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gitOutside } from './git-outside.ts';
import { gitDirOf, repositoryOf } from './git-dir.ts';

/** A gitlink's mode as the index stores it: 0o160000, 32 bits big-endian. */
const GITLINK_MODE = Buffer.from([0, 0, 0xe0, 0]);
/** Past this size the index is not scanned for a gitlink first: git is asked at once. */
const SCAN_LIMIT = 64 << 20;

const known = new Map<string, { key: string; checkouts: string[] }>();

/** The submodule checkouts (absolute paths) of the repositories of `roots`, each root's under it. */
export async function submoduleCheckouts(roots: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const found = await Promise.all(roots.map((root) => checkoutsUnder(root, env)));
  return [...new Set(found.flat())];
}

async function checkoutsUnder(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const index = indexOf(root);
  if (index === undefined) return [];
  const info = statSync(index, { throwIfNoEntry: false });
  if (!info) return [];
  const key = `${index}:${info.ino}:${info.size}:${info.mtimeMs}`;
  const cached = known.get(root);
  if (cached?.key === key) return cached.checkouts;
  const checkouts = mayHoldGitlinks(index, info.size) ? await gitlinks(root, env) : [];
  known.set(root, { key, checkouts });
  return checkouts;
}

/** The index git uses in `root`: that of the nearest repository at or above it (a `.git` folder or file). */
function indexOf(root: string): string | undefined {
  const repository = repositoryOf(root);
  const gitDir = repository === undefined ? undefined : gitDirOf(repository);
  return gitDir === undefined ? undefined : path.join(gitDir, 'index');
}

/** False only when the index (and a split index's shared part) cannot hold a gitlink. */
function mayHoldGitlinks(index: string, size: number): boolean {
  if (size > SCAN_LIMIT) return true;
  const bytes = readFileSync(index);
  if (bytes.includes(GITLINK_MODE)) return true;
  // A split index keeps most entries in sharedindex.<hash> beside it.
  if (!bytes.includes(Buffer.from('link'))) return false;
  return readdirSync(path.dirname(index)).some((name) => name.startsWith('sharedindex.'));
}

/** The gitlinks git lists in `root`'s index, as absolute paths under `root`. */
async function gitlinks(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const run = await gitOutside(root, env, ['ls-files', '--stage', '-z'], 64 << 20);
  // No git, or an index git cannot read: then git outside looks into no submodule either.
  if (run.error || run.code !== 0 || run.dropped.stdout > 0) return [];
  return run.stdout
    .split('\0')
    .filter((line) => line.startsWith('160000 '))
    .map((line) => path.join(root, line.slice(line.indexOf('\t') + 1)));
}
