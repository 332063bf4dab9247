/**
 * Files whose contents make programs run: repository and tool configuration, shell start-up
 * files, package manager settings. Writing them needs explicit approval even in `acceptEdits`,
 * since a later "read-only" command (`git status`) or a new shell would execute what they say.
 */
import path from 'node:path';

/** Folders whose every file is protected. */
const FOLDERS = new Set(['.git', '.agentpipe', '.claude', '.vscode', '.idea', '.husky', '.devcontainer', '.github']);
/** File names protected wherever they are. */
const FILES = new Set([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.gitconfig',
  '.gitattributes',
  '.gitmodules',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.envrc',
  '.mcp.json',
  '.pre-commit-config.yaml',
  '.ssh',
  'authorized_keys',
]);

/**
 * The reason `file` (resolved) is protected, or undefined. Names are compared without case: on a
 * case-insensitive file system (macOS, Windows) `.GIT/hooks/pre-commit` is `.git/hooks/pre-commit`,
 * and a path that does not exist yet has no real spelling to resolve to.
 */
export function protectedReason(file: string): string | undefined {
  const parts = file.split(path.sep);
  const folder = parts.slice(0, -1).find((p) => FOLDERS.has(p.toLowerCase()));
  if (folder) return `it is inside ${folder}/, whose files can make programs run`;
  const name = parts.at(-1) ?? '';
  if (FOLDERS.has(name.toLowerCase())) return `${name} is configuration that can make programs run`;
  if (FILES.has(name.toLowerCase())) return `${name} is configuration that can make programs run`;
  return undefined;
}
