/**
 * Where git outside the sandbox takes a repository's config and hooks from: the folder a `.git` names. A `.git`
 * folder (or a link to one: git follows it), or a `.git` file's `gitdir:` (a linked worktree, a submodule, a clone
 * made with `--separate-git-dir`), and that git folder's `commondir` (a linked worktree's main git folder, where its
 * config and hooks are).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The nearest folder at or above `dir` holding a `.git` (of any kind): the repository git finds from `dir`. */
export function repositoryOf(dir: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    if (statSync(path.join(at, '.git'), { throwIfNoEntry: false })) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

/** The git folder `root`'s `.git` names: itself (a folder, or a link to one), or its `gitdir:`; undefined if none. */
export function gitDirOf(root: string): string | undefined {
  const git = path.join(root, '.git');
  if (statSync(git, { throwIfNoEntry: false })?.isDirectory()) return git;
  const named = /^gitdir: (.+)$/m.exec(readText(git))?.[1]?.trim();
  return named ? path.resolve(root, named) : undefined;
}

/** The folder a git folder takes its config and hooks from: its `commondir` when it names one, else itself. */
export function commonDirOf(gitDir: string): string {
  const common = readText(path.join(gitDir, 'commondir')).trim();
  return common ? path.resolve(gitDir, common) : gitDir;
}

/**
 * The text of a regular file, else ''. Opened without blocking and checked: a FIFO a command made (`mkfifo sub/.git`)
 * would otherwise hold agentpipe's only thread in open(2) for ever.
 */
export function readText(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : '';
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
