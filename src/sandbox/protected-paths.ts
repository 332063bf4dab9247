/**
 * The paths the sandbox treats apart (mounts.ts mounts them): the credential stores it hides, the
 * configuration in writable folders it keeps read-only, and how a missing one is covered.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
  '.yarnrc.yml',
  '.pgpass',
  '.my.cnf',
  '.gradle/gradle.properties',
  '.gem/credentials',
  '.config/containers/auth.json',
  '.config/rclone',
  '.config/composer/auth.json',
  '.composer/auth.json',
  '.s3cfg',
  '.boto',
  '.oci',
  '.config/doctl',
  // agentpipe's default home (transcripts, locks), also when this session's $AGENTPIPE_HOME is elsewhere.
  '.agentpipe',
  '.claude',
  '.claude.json',
  '.codex',
  '.gemini',
  '.qwen',
] as const;

/**
 * Inside a writable folder: configuration a later program outside the sandbox would run, kept
 * read-only. A missing one is covered by an empty read-only folder or file (a mount point that
 * goes after the run: see `claims`), so that it cannot be created either: a `.vscode/tasks.json`
 * runs on the editor's next open, a `.mcp.json` starts servers when the folder is trusted, an
 * `.envrc` runs on direnv's next `cd`, a `.pre-commit-config.yaml` on the next commit.
 */
export const PROTECTED = [
  '.agentpipe',
  '.claude',
  '.husky',
  '.vscode',
  '.idea',
  '.mcp.json',
  '.envrc',
  '.pre-commit-config.yaml',
];
/**
 * Inside a repository's git folder that `sandbox.filesystem.allowWrite` names (otherwise the git
 * folder is read-only whole): what git outside runs or takes its configuration from. `commondir`
 * names the folder git takes config and hooks from (a linked worktree's); `modules` holds the
 * submodules' git folders (their config and hooks), `worktrees` the linked worktrees'.
 */
export const GIT_PROTECTED = ['hooks', 'config', 'commondir', 'config.worktree', 'modules', 'worktrees'];
/** Protected names covered by an empty read-only folder when missing (git makes `hooks/` at init, not every tool). */
export const MISSING_AS_FOLDER = new Set(['.agentpipe', '.claude', '.vscode', '.idea', '.husky', 'hooks']);
/** Protected names covered by an empty read-only file when missing (an empty one means nothing to their readers). */
export const MISSING_AS_FILE = new Set(['.mcp.json', '.envrc', '.pre-commit-config.yaml', 'config', 'config.worktree']);
/**
 * Protected files that cannot get a mount point while missing (git reads an empty `commondir`
 * as an error): the run's own `release` removes one that appeared (see `mustStayMissing`).
 */
export const REMOVE_WHEN_CREATED = new Set(['commondir']);

/**
 * The paths of writable folder `root` that stay read-only: `PROTECTED`, and its git folder whole,
 * or (when `sandbox.filesystem.allowWrite` names the git folder: `gitWritable`) `GIT_PROTECTED` in it.
 */
export function protectedIn(root: string, gitWritable: boolean): string[] {
  const git = path.join(root, '.git');
  return [
    ...PROTECTED.map((name) => path.join(root, name)),
    ...(gitWritable ? GIT_PROTECTED.map((name) => path.join(git, name)) : [git]),
  ];
}

/** `~` and `~/x` expanded, a relative path resolved against `cwd`. */
export function expandHome(target: string, cwd: string, home: string = os.homedir()): string {
  if (target === '~') return home;
  if (target.startsWith('~/')) return path.join(home, target.slice(2));
  return path.resolve(cwd, target);
}

/**
 * The credential stores of `home` that may exist: those whose first name the home folder holds (one listing, not
 * an lstat for each of the ~40 names; most are missing). All of them when it cannot be listed.
 */
export function storesIn(home: string): string[] {
  let names: Set<string>;
  try {
    names = new Set(readdirSync(home));
  } catch {
    names = new Set(CREDENTIAL_STORES.map(topName));
  }
  return CREDENTIAL_STORES.filter((store) => names.has(topName(store))).map((store) => path.join(home, store));
}

/** A store's name in the home folder itself (`.config` for `.config/gh`). */
function topName(store: string): string {
  return store.split('/')[0] ?? store;
}
