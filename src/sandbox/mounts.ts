/**
 * What a sandboxed process sees of the file system, as bubblewrap arguments: the whole tree
 * read-only, then the folders its profile may write bound writable again, the configuration in
 * them that makes programs run bound read-only on top, and the credential stores and agentpipe's
 * own home hidden (an empty read-only tmpfs over a folder, /dev/null over a file). Only paths that
 * exist are mounted; a protected folder that does not exist yet gets an empty read-only mount so
 * that it cannot be created (its mount point is removed again after the run: see `claims`);
 * a protected file that cannot have one (`.git/commondir`) is removed after the run if it appeared.
 * Runs at once in one folder, in this process or another, share such a point: it is removed after
 * the last run that uses it (points.ts), never while another run may mount it or has it mounted.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isInside } from '../process/paths.ts';
import { claimPoint, releasePoint, type PointClaim } from './points.ts';

/** Credential stores under the home folder, hidden from every profile (Claude Code's and Codex's lists and more). */
export const CREDENTIAL_STORES = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/op',
  '.config/anthropic',
  '.netrc',
  '.docker',
  '.npmrc',
  '.yarnrc',
  '.pypirc',
  '.git-credentials',
  '.config/git/credentials',
  '.gnupg',
  '.password-store',
  '.local/share/keyrings',
  '.kube',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.claude',
  '.claude.json',
  '.codex',
  '.gemini',
  '.qwen',
] as const;

/** Inside a writable folder: configuration a later program outside the sandbox would run, kept read-only. */
export const PROTECTED = [
  '.git/hooks',
  '.git/config',
  // A gitdir's `commondir` names the folder git takes config and hooks from (a linked worktree's).
  '.git/commondir',
  '.agentpipe',
  '.claude',
  '.husky',
  '.vscode',
  '.idea',
  '.mcp.json',
  '.envrc',
  // pre-commit's hooks run on the next `git commit` outside the sandbox.
  '.pre-commit-config.yaml',
];
/**
 * Protected folders made (empty, read-only) when missing, so a command cannot create them: a
 * `.vscode/tasks.json` or `.vscode/settings.json` runs on the editor's next open, a `.git/hooks/pre-commit`
 * on the next commit (git makes `hooks/` at init, but not every tool does).
 */
const CREATE_WHEN_MISSING = new Set(['.agentpipe', '.claude', '.vscode', '.idea', '.husky', '.git/hooks']);
/**
 * Protected files that cannot get a mount point while missing (git reads an empty `commondir`
 * as an error): the run's own `release` removes one that appeared (see `mustStayMissing`).
 */
const REMOVE_WHEN_CREATED = new Set(['.git/commondir']);

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
}

/** What `mountArgs` gives: bubblewrap's arguments, the claims on mount points, files to remove if they appear. */
export interface Mounts {
  args: string[];
  claims: PointClaim[];
  mustStayMissing: string[];
}

/**
 * The mount arguments of a plan, and the claims on the mount points bubblewrap will create (to
 * give back after the run with `releaseMountPoints`). Order matters: hidden paths first (an empty
 * tmpfs stays writable until the end, so allowed paths under it can get their mount points), then
 * the writable and readable paths, the protected ones on top, and the hidden folders made
 * read-only last.
 */
export function mountArgs(plan: MountPlan): Mounts {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const claims: PointClaim[] = [];
  const mustStayMissing: string[] = [];
  const writable = existing(plan.writable);
  const allowRead = existing(plan.allowRead);
  const kept = [...writable, ...allowRead];
  const stores = plan.credentialStores
    ? unique(plan.homes).flatMap((home) => CREDENTIAL_STORES.map((name) => path.join(home, name)))
    : [];
  const remount: string[] = [];
  // Hidden paths inside a writable folder (a home folder that is the working folder): hidden once it is bound.
  const hiddenInside: string[] = [];
  for (const target of existing([...stores, ...plan.hidden])) {
    // A path kept visible by name (or inside one) is not hidden; one holding a kept path is, and the kept path is
    // bound back. A working folder that merely holds a hidden path does not make it visible.
    if (allowRead.some((keep) => isInside(target, keep)) || writable.includes(target)) continue;
    if (writable.some((dir) => isInside(target, dir))) hiddenInside.push(target);
    else hide(target, args, remount);
  }
  const bindKept = (dir: string) => args.push(writable.includes(dir) ? '--bind' : '--ro-bind', dir, dir);
  for (const dir of writable) args.push('--bind', dir, dir);
  for (const dir of allowRead) if (!writable.includes(dir)) args.push('--ro-bind', dir, dir);
  const scratch = existing(plan.scratch ?? []);
  for (const root of writable.filter((dir) => isDirectory(dir) && !scratch.includes(dir))) {
    // The git folder bound onto itself is a mount point: it cannot be renamed or removed, so a
    // command cannot set a .git of its own (config, hooks) in its place.
    // Only a git folder that is writable already: one a link leads to elsewhere stays read-only.
    const found = real(path.join(root, '.git'));
    const gitDir = found !== undefined && isDirectory(found) ? found : undefined;
    // No repository here (no .git, or an empty one: a point of ours, or no repository to git): kept from being made.
    const noRepository = found === undefined || (gitDir !== undefined && isEmptyDirectory(gitDir));
    const gitWritable = gitDir !== undefined && !noRepository && writable.some((dir) => isInside(gitDir, dir));
    if (noRepository && plan.maskMissingGit) {
      const claim = protectFolder(path.join(root, '.git'), plan.emptyDir, args);
      if (claim) claims.push(claim);
    } else if (gitWritable) args.push('--bind', gitDir, gitDir);
    // A linked worktree's or a submodule's `.git` is a file naming its gitdir: kept as it is, so a command cannot
    // point git at a gitdir (config, hooks) of its own.
    else if (found !== undefined && gitDir === undefined) args.push('--ro-bind', found, found);
    for (const name of PROTECTED) {
      const target = path.join(root, name);
      // Inside .git only when it is a folder this run may write (bubblewrap would make a missing .git too).
      if (CREATE_WHEN_MISSING.has(name) && (!name.startsWith('.git/') || gitWritable)) {
        const claim = protectFolder(target, plan.emptyDir, args);
        if (claim) claims.push(claim);
        continue;
      }
      // Through a link too: the file or folder it leads to is what a write would change.
      const resolved = real(target);
      if (resolved !== undefined) args.push('--ro-bind', resolved, resolved);
      else if (REMOVE_WHEN_CREATED.has(name) && gitWritable) mustStayMissing.push(target);
    }
  }
  for (const target of existing(plan.denyWrite))
    if (writable.some((dir) => isInside(target, dir))) args.push('--ro-bind', target, target);
  for (const target of hiddenInside) {
    hide(target, args, remount);
    for (const keep of kept) if (keep !== target && isInside(keep, target)) bindKept(keep);
  }
  for (const target of remount) args.push('--remount-ro', target);
  return { args, claims, mustStayMissing };
}

/** Hides `target`: an empty tmpfs over a folder (made read-only at the end, see `remount`), /dev/null over a file. */
function hide(target: string, args: string[], remount: string[]): void {
  if (isDirectory(target)) {
    args.push('--tmpfs', target);
    remount.push(target);
  } else args.push('--ro-bind', '/dev/null', target);
}

/**
 * Mounts a protected folder read-only: the user's folder as it is (through a link, the folder it
 * leads to); a missing one, or a point runs of agentpipe made, as an empty read-only mount point
 * this run claims. bubblewrap makes the point if it is gone by the time it mounts, so a point never
 * needs to exist when it is claimed. A dangling link is left alone (a mount would follow it).
 */
function protectFolder(target: string, emptyDir: string, args: string[]): PointClaim | undefined {
  return claimPoint(target, ({ wasPoint }) => {
    const resolved = real(target);
    if (resolved !== undefined && !wasPoint) {
      args.push('--ro-bind', resolved, resolved);
      return false;
    }
    if (resolved === undefined && isLink(target)) return false;
    args.push('--ro-bind', emptyDir, target);
    return true;
  });
}

/** A run that got `claims` from mountArgs ended: each point is removed once no run anywhere uses it. */
export function releaseMountPoints(claims: PointClaim[]): void {
  for (const claim of claims) releasePoint(claim);
}

/** The real paths of those that exist, once each. */
function existing(paths: string[]): string[] {
  return unique(paths.map(real).filter((p): p is string => p !== undefined));
}

/** The real path of an existing path; undefined when it does not exist. */
function real(target: string): string | undefined {
  try {
    return realpathSync.native(target);
  } catch {
    return undefined;
  }
}

/** `~` and `~/x` expanded, a relative path resolved against `cwd`. */
export function expandHome(target: string, cwd: string, home: string = os.homedir()): string {
  if (target === '~') return home;
  if (target.startsWith('~/')) return path.join(home, target.slice(2));
  return path.resolve(cwd, target);
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

function isDirectory(target: string): boolean {
  try {
    return statSync(target).isDirectory();
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
  try {
    return lstatSync(target).isSymbolicLink();
  } catch {
    return false;
  }
}
