/**
 * What a sandboxed process sees of the file system, as bubblewrap arguments: the whole tree
 * read-only, then the folders its profile may write bound writable again, the configuration in
 * them that makes programs run bound read-only on top, and the credential stores and agentpipe's
 * own home hidden (the empty folder, or an empty tmpfs where a kept path lies below, over a folder;
 * /dev/null over a file). Only paths that
 * exist are mounted; a protected folder that does not exist yet gets an empty read-only mount so
 * that it cannot be created (its mount point is removed again after the run: see `claims`);
 * a protected file that cannot have one (`.git/commondir`) is removed after the run if it appeared.
 * Runs at once in one folder, in this process or another, share such a point: it is removed after
 * the last run that uses it (points.ts), never while another run may mount it or has it mounted.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { isInside } from '../process/paths.ts';
import { claimingPoints, claimPoint, releasePoints, type PointClaim } from './points.ts';
import { commonDirOf, gitDirOf } from './git-dir.ts';
import {
  GIT_PROTECTED,
  MISSING_AS_FILE,
  MISSING_AS_FOLDER,
  PROTECTED,
  REMOVE_WHEN_CREATED,
  storesIn,
} from './protected-paths.ts';

/** What one sandboxed run may see and write. */
export interface MountPlan {
  /** Folders (and files) writable inside: the working folders, the session's temp folder, a CLI's home. */
  writable: string[];
  /** Writable paths that are nevertheless read-only (`sandbox.filesystem.denyWrite`). */
  denyWrite: string[];
  /** Paths hidden (credential stores, agentpipe's home, `sandbox.filesystem.denyRead`). */
  hidden: string[];
  /** Paths kept visible although under a hidden one (`sandbox.filesystem.allowRead`, a CLI's own home). */
  allowRead: string[];
  /** False for the key helper, which exists to use the user's credentials. */
  credentialStores: boolean;
  /** An empty folder of agentpipe's (mounted read-only where a protected folder is missing). */
  emptyDir: string;
  /** An empty file of agentpipe's (mounted read-only where a protected file is missing). */
  emptyFile: string;
  /** The home folders whose credential stores are hidden (the user's, and a child's own HOME when it differs). */
  homes: string[];
  /**
   * Writable folders private to this process that go when it exits (its sandboxes' temp folder):
   * no protected paths inside, as nothing outside a sandbox runs from there.
   */
  scratch?: string[];
  /**
   * A writable folder without `.git` gets an empty read-only one, so a command cannot make a
   * repository there whose hooks and config a later git outside the sandbox would run (`git init`
   * fails inside). Off for wrapped CLIs, which may take any `.git` for a repository.
   */
  maskMissingGit?: boolean;
  /**
   * Submodule checkouts and other repositories below the top of the writable folders (submodules.ts,
   * nested-repos.ts): their `.git` kept read-only as it is, their folders in place.
   */
  submodules?: string[];
  /** Bare repositories below the top of the writable folders (nested-repos.ts): read-only whole, in place. */
  bareRepos?: string[];
}

/** What `mountArgs` gives: bubblewrap's arguments, the claims on mount points, files to remove if they appear. */
export interface Mounts {
  args: string[];
  claims: PointClaim[];
  mustStayMissing: string[];
  /**
   * Repositories' `.git` links (a `.git` that is a symbolic link to the git folder): no mount can sit on a link, so a
   * command could replace one with a link to a git folder of its making, whose config git outside would run. The
   * run's own `release` puts back one that changed (see `restoreLinks` in sandbox.ts).
   */
  keptLinks: KeptLink[];
}

/** A symbolic link and what it named when the run started. */
export interface KeptLink {
  link: string;
  target: string;
}

/**
 * The mount arguments of a plan, and the claims on the mount points bubblewrap will create (to
 * give back after the run with `releaseMountPoints`). Order matters: hidden paths first (an empty
 * tmpfs stays writable until the end, so allowed paths under it can get their mount points), then
 * the writable and readable paths, the protected ones on top, and the hidden folders made
 * read-only last.
 */
export function mountArgs(plan: MountPlan): Mounts {
  // Every point of the run is claimed in one look at the registry (one lock, one marker written).
  return claimingPoints(() => planMounts(plan));
}

function planMounts(plan: MountPlan): Mounts {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const claims: PointClaim[] = [];
  const mustStayMissing: string[] = [];
  const keptLinks: KeptLink[] = [];
  const out: Mounts = { args, claims, mustStayMissing, keptLinks };
  const writable = existing(plan.writable);
  const allowRead = existing(plan.allowRead);
  const kept = [...writable, ...allowRead];
  const stores = plan.credentialStores ? unique(plan.homes).flatMap(storesIn) : [];
  const remount: string[] = [];
  // Hidden paths inside a writable folder (a home folder that is the working folder): hidden once it is bound.
  const hiddenInside: string[] = [];
  // A path kept visible by name (or inside one) is not hidden; one holding a kept path is, and the kept path is
  // bound back. A working folder that merely holds a hidden path does not make it visible.
  const hidden = existing([...stores, ...plan.hidden]).filter(
    (target) => !allowRead.some((keep) => isInside(target, keep)) && !writable.includes(target),
  );
  // Nothing is mounted below a hidden folder outside the writable ones that holds no kept path: the empty folder,
  // read-only, in one mount; a hidden path inside one needs no mount of its own (nothing below it is seen).
  const emptied = hidden.filter(
    (target) =>
      !writable.some((dir) => isInside(target, dir)) &&
      isDirectory(target) &&
      !kept.some((keep) => isInside(keep, target)),
  );
  for (const target of hidden) {
    if (emptied.some((dir) => dir !== target && isInside(target, dir))) continue;
    if (emptied.includes(target)) args.push('--ro-bind', plan.emptyDir, target);
    else if (writable.some((dir) => isInside(target, dir))) hiddenInside.push(target);
    else hide(target, args, remount);
  }
  const readOnlyInside = existing(plan.denyWrite).filter((target) => writable.some((dir) => isInside(target, dir)));
  const bindKept = (dir: string) => args.push(writable.includes(dir) ? '--bind' : '--ro-bind', dir, dir);
  for (const dir of writable) args.push('--bind', dir, dir);
  for (const dir of allowRead) if (!writable.includes(dir)) args.push('--ro-bind', dir, dir);
  const scratch = existing(plan.scratch ?? []);
  const roots = writable.filter((dir) => isDirectory(dir) && !scratch.includes(dir));
  // A git folder that `allowWrite` names is one root's repository, protected as such, not a folder of its own.
  const gitDirs = new Set(roots.map((root) => real(path.join(root, '.git'))));
  // Outer folders first; a writable folder inside another is bound again first, as that one's protected paths
  // (`.agentpipe` holding a wrapped CLI's own agentpipe home) may cover it read-only by now.
  const ordered = roots.filter((dir) => !gitDirs.has(dir)).sort((a, b) => a.length - b.length);
  // The read-only binds of git folders below the roots, made after every folder on the way to them is bound onto
  // itself: a folder bound later (another root's, another repository's way) would cover one made before.
  const late: string[] = [];
  const below = (list: string[] | undefined, root: string) =>
    (list ?? []).filter((checkout) => checkout !== root && isInside(checkout, root));
  for (const root of ordered) {
    if (ordered.some((outer) => outer !== root && isInside(root, outer))) args.push('--bind', root, root);
    pinWays(root, [...hiddenInside, ...readOnlyInside], args);
    protectGit(root, writable, plan, out, late);
    const bare = below(plan.bareRepos, root);
    protectCheckouts(root, [...below(plan.submodules, root), ...bare], new Set(bare), plan, out, { late, writable });
    for (const name of PROTECTED) protectPath(path.join(root, name), emptyFor(name, plan), args, claims);
  }
  args.push(...late);
  for (const target of readOnlyInside) args.push('--ro-bind', target, target);
  for (const target of hiddenInside) {
    hide(target, args, remount);
    for (const keep of kept) if (keep !== target && isInside(keep, target)) bindKept(keep);
  }
  for (const target of remount) args.push('--remount-ro', target);
  return out;
}

/**
 * The git folder of writable folder `root`. A repository's is read-only whole (as Codex keeps it): a
 * command that could write the index could register a nested repository of its own as a submodule,
 * whose config (`core.fsmonitor`) the user's next `git status` runs. Bound onto itself, it is a mount
 * point: it cannot be moved aside and replaced by one of the command's. When `allowWrite` names it,
 * it is writable but for `GIT_PROTECTED`. No repository (no `.git`, or an empty one: a point of ours, or
 * no repository to git): an empty read-only `.git` keeps one from being made (`maskMissingGit`).
 */
function protectGit(root: string, writable: string[], plan: MountPlan, out: Mounts, late: string[]): void {
  keepLink(path.join(root, '.git'), out);
  const found = real(path.join(root, '.git'));
  const gitDir = found !== undefined && isDirectory(found) ? found : undefined;
  const noRepository = found === undefined || (gitDir !== undefined && isEmptyDirectory(gitDir));
  if (noRepository) {
    if (plan.maskMissingGit) protectPath(path.join(root, '.git'), plan.emptyDir, out.args, out.claims);
    return;
  }
  // A linked worktree's or a submodule's `.git` is a file naming its gitdir: kept as it is, so a command cannot
  // point git at a gitdir (config, hooks) of its own. A git folder outside the writable ones is read-only already.
  if (gitDir === undefined) {
    out.args.push('--ro-bind', found, found);
    protectNamedGitDir(root, late, writable);
  } else if (!writable.some((dir) => isInside(gitDir, dir))) return;
  else if (!writable.includes(gitDir)) out.args.push('--ro-bind', gitDir, gitDir);
  else {
    out.args.push('--bind', gitDir, gitDir);
    for (const name of GIT_PROTECTED) {
      const target = path.join(gitDir, name);
      if (REMOVE_WHEN_CREATED.has(name) && real(target) === undefined) out.mustStayMissing.push(target);
      else protectPath(target, emptyFor(name, plan), out.args, out.claims);
    }
  }
}

/**
 * Submodule checkouts and other repositories under `root`: each one's `.git` read-only as it is (a
 * folder or a file naming the git folder), or an empty read-only one when missing, so no repository
 * of a command's making is there for git outside to look into; each folder from the root down to
 * them bound onto itself, so none can be moved aside for a new one in its place. A missing folder
 * on the way is covered by an empty read-only one; a link on the way is left (git does not look into
 * a repository behind one). All the folders are bound first, the `.git`s after: a folder bound
 * later would cover a `.git` below it made read-only before (a repository inside another).
 */
function protectCheckouts(
  root: string,
  checkouts: string[],
  bare: Set<string>,
  plan: MountPlan,
  out: Mounts,
  { late, writable }: { late: string[]; writable: string[] },
) {
  const { args, claims } = out;
  const bound = new Set<string>();
  const stopped = new Set<string>();
  const reached: string[] = [];
  for (const checkout of [...checkouts].sort((a, b) => a.length - b.length)) {
    let dir = root;
    let whole = true;
    for (const part of path.relative(root, checkout).split(path.sep)) {
      dir = path.join(dir, part);
      if (bound.has(dir)) continue;
      whole = !stopped.has(dir) && !isLink(dir);
      if (whole && !isDirectory(dir)) {
        protectPath(dir, plan.emptyDir, args, claims);
        whole = false;
      }
      if (!whole) {
        stopped.add(dir);
        break;
      }
      bound.add(dir);
      args.push('--bind', dir, dir);
    }
    if (whole) reached.push(checkout);
  }
  for (const checkout of reached) {
    if (bare.has(checkout)) {
      late.push('--ro-bind', checkout, checkout);
      continue;
    }
    const git = path.join(checkout, '.git');
    keepLink(git, out);
    if (real(git) === undefined) {
      if (!isLink(git)) protectPath(git, plan.emptyDir, late, claims);
      continue;
    }
    if (!isLink(git)) late.push('--ro-bind', git, git);
    protectNamedGitDir(checkout, late, writable);
  }
}

/**
 * Each folder from `root` down to a hidden or `denyWrite` path inside it bound onto itself (before anything is
 * mounted below them): a mount point cannot be moved aside, so no command renames a folder that holds one (`mv a b`,
 * `a/.env` denied, or `.config` holding `.config/gh`) for the next command, which mounts it by its path, to read or
 * write it there.
 */
function pinWays(root: string, targets: string[], args: string[]): void {
  const bound = new Set<string>();
  for (const target of targets.filter((t) => t !== root && isInside(t, root))) {
    let dir = root;
    for (const part of path.relative(root, path.dirname(target)).split(path.sep).filter(Boolean)) {
      dir = path.join(dir, part);
      if (bound.has(dir)) continue;
      if (isLink(dir) || !isDirectory(dir)) break;
      bound.add(dir);
      args.push('--bind', dir, dir);
    }
  }
}

/** Records `.git` when it is a symbolic link (`keptLinks`): what it names now is put back after the run. */
function keepLink(git: string, out: Mounts): void {
  if (!isLink(git)) return; // not a link (or gone): mounted, or covered, as it is
  try {
    out.keptLinks.push({ link: git, target: readlinkSync(git) });
  } catch {
    // gone meanwhile
  }
}

/**
 * The git folder a repository's `.git` names when it is not the `.git` folder itself (a link to one, a `gitdir:`
 * file: a linked worktree, `--separate-git-dir`), and its common folder (a worktree's main git folder): read-only
 * too, so a command cannot write the config and hooks git outside takes from there.
 */
function protectNamedGitDir(root: string, args: string[], writable: string[]): void {
  const named = gitDirOf(root);
  const own = path.join(root, '.git');
  for (const dir of named === undefined ? [] : [named, commonDirOf(named)]) {
    const resolved = real(dir);
    // One outside every writable folder is read-only already (`--ro-bind / /`), or hidden with what holds it.
    if (resolved !== undefined && resolved !== own && writable.some((root) => isInside(resolved, root)))
      args.push('--ro-bind', resolved, resolved);
  }
}

/** What covers protected `name` while it is missing: an empty folder, an empty file, or nothing. */
function emptyFor(name: string, plan: MountPlan): string | undefined {
  return MISSING_AS_FOLDER.has(name) ? plan.emptyDir : MISSING_AS_FILE.has(name) ? plan.emptyFile : undefined;
}

/**
 * Keeps one protected path read-only: an existing one as it is (through a link, what it leads to);
 * a missing one, when `empty` is given, as that empty folder or file on a point this run claims.
 */
function protectPath(target: string, empty: string | undefined, args: string[], claims: PointClaim[]): void {
  if (empty === undefined) {
    const resolved = real(target);
    if (resolved !== undefined) args.push('--ro-bind', resolved, resolved);
    return;
  }
  const claim = protectPoint(target, empty, args);
  if (claim) claims.push(claim);
}

/** Hides `target`: an empty tmpfs over a folder (made read-only at the end, see `remount`), /dev/null over a file. */
function hide(target: string, args: string[], remount: string[]): void {
  if (isDirectory(target)) {
    args.push('--tmpfs', target);
    remount.push(target);
  } else args.push('--ro-bind', '/dev/null', target);
}

/**
 * Mounts a protected folder or file read-only: the user's as it is (through a link, what it leads
 * to); a missing one, or a point runs of agentpipe made, as `empty` (an empty folder or file) on a
 * mount point this run claims. bubblewrap makes the point if it is gone by the time it mounts, so a
 * point never needs to exist when it is claimed. A dangling link is left alone (a mount would follow it).
 */
function protectPoint(target: string, empty: string, args: string[]): PointClaim | undefined {
  return claimPoint(target, ({ wasPoint }) => {
    const resolved = real(target);
    if (resolved !== undefined && !wasPoint) {
      args.push('--ro-bind', resolved, resolved);
      return false;
    }
    if (resolved === undefined && isLink(target)) return false;
    args.push('--ro-bind', empty, target);
    return true;
  });
}

/** A run that got `claims` from mountArgs ended: each point is removed once no run anywhere uses it. */
export function releaseMountPoints(claims: PointClaim[]): void {
  releasePoints(claims);
}

/** The real paths of those that exist, once each. */
function existing(paths: string[]): string[] {
  return unique(paths.map(real).filter((p): p is string => p !== undefined));
}

/** The real path of an existing path; undefined when it does not exist. */
function real(target: string): string | undefined {
  // Most paths asked about do not exist (protected names, credential stores): an lstat says so without the
  // exception realpath would throw (~40 µs each, cold). A path lstat cannot find, realpath cannot resolve either.
  if (lstatOf(target) === undefined) return undefined;
  try {
    return realpathSync.native(target);
  } catch {
    return undefined;
  }
}

/** lstat without an exception for a path that does not exist (nor for one below a file). */
function lstatOf(target: string): Stats | undefined {
  try {
    return lstatSync(target, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

function isDirectory(target: string): boolean {
  try {
    return statSync(target, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function isEmptyDirectory(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

function isLink(target: string): boolean {
  return lstatOf(target)?.isSymbolicLink() === true;
}
