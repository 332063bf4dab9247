/**
 * The permission table's workspaces: the base one every row gets (files, links, a hard link, an
 * outside folder, a throwaway home) and the setups a row names with `setup:` (git repositories
 * whose config names programs, embedded and bare repositories, files named like options). Every
 * program a setup plants touches a file named PWNED: the table asserts none ever appears.
 */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A row's folders: the working folder, a folder outside it, and HOME. */
export interface Workspace {
  cwd: string;
  outside: string;
  home: string;
}

/** What a planted program does: leaves a file named PWNED in the folder it runs in. */
export const PWNED = 'touch PWNED; cat';
/** The content of outside/f.txt, which no row may change. */
export const OUTSIDE_TEXT = 'outside\n';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'table',
  GIT_AUTHOR_EMAIL: 'table@example.invalid',
  GIT_COMMITTER_NAME: 'table',
  GIT_COMMITTER_EMAIL: 'table@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] }).trim();
}

/**
 * The base workspace under `base`: work/ holds a.txt, .env, secret/a, sub/, link-secret -> secret,
 * link-env -> .env, link-out -> outside, link-out-file -> outside/f.txt, link-inner ->
 * outside/inner (so link-inner/../f.txt is outside/f.txt), and hard-out, a hard link to
 * outside/f.txt.
 */
export function baseWorkspace(base: string): Workspace {
  const cwd = path.join(base, 'work');
  const outside = path.join(base, 'outside');
  const home = path.join(base, 'home');
  for (const dir of [path.join(cwd, 'secret'), path.join(cwd, 'sub'), path.join(outside, 'inner'), home])
    mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(cwd, 'a.txt'), 'b\na\na\n');
  writeFileSync(path.join(cwd, '.env'), 'SECRET=hunter2\n');
  writeFileSync(path.join(cwd, 'secret/a'), 'top secret\n');
  writeFileSync(path.join(outside, 'f.txt'), OUTSIDE_TEXT);
  symlinkSync(path.join(cwd, 'secret'), path.join(cwd, 'link-secret'));
  symlinkSync(path.join(cwd, '.env'), path.join(cwd, 'link-env'));
  symlinkSync(outside, path.join(cwd, 'link-out'));
  symlinkSync(path.join(outside, 'f.txt'), path.join(cwd, 'link-out-file'));
  symlinkSync(path.join(outside, 'inner'), path.join(cwd, 'link-inner'));
  linkSync(path.join(outside, 'f.txt'), path.join(cwd, 'hard-out'));
  return { cwd, outside, home };
}

/** A repository in the working folder: everything committed, then a.txt changed (so git diff has a hunk). */
function repository(ws: Workspace, attributes?: string): void {
  git(ws.cwd, 'init', '-q', '-b', 'main');
  if (attributes) writeFileSync(path.join(ws.cwd, '.gitattributes'), attributes);
  git(ws.cwd, 'add', '-A');
  git(ws.cwd, 'commit', '-q', '-m', 'first');
  writeFileSync(path.join(ws.cwd, 'a.txt'), 'b\na\na\nchanged\n');
}

/** A repository whose own config sets `key` to `value`, with `attributes` committed. */
const configured =
  (key: string, value: string, attributes = '*.txt diff=x filter=y\n') =>
  (ws: Workspace) => {
    repository(ws, attributes);
    git(ws.cwd, 'config', key, value);
  };

/** A bare repository at `dir` (in the working folder): one commit of a .txt file, a textconv in its config. */
function bareWithTextconv(ws: Workspace, dir: string): void {
  const source = path.join(path.dirname(ws.cwd), 'source');
  mkdirSync(source);
  writeFileSync(path.join(source, '.gitattributes'), '*.txt diff=x\n');
  writeFileSync(path.join(source, 'x.txt'), 'one\n');
  git(source, 'init', '-q', '-b', 'main');
  git(source, 'add', '-A');
  git(source, 'commit', '-q', '-m', 'one');
  git(ws.cwd, 'clone', '-q', '--bare', source, dir);
  git(path.join(ws.cwd, dir), 'config', 'diff.x.textconv', PWNED);
}

/** The setups rows name (`setup:`), applied to a base workspace. */
export const SETUPS: Record<string, (ws: Workspace) => void> = {
  repo: (ws) => repository(ws),
  // A link in the working folder that leads into the git folder's hooks.
  'repo-hooks-link': (ws) => {
    repository(ws);
    symlinkSync(path.join(ws.cwd, '.git', 'hooks'), path.join(ws.cwd, 'hooks-link'));
  },
  'repo-textconv': configured('diff.x.textconv', PWNED),
  'repo-filter': configured('filter.y.clean', PWNED),
  'repo-diff-command': configured('diff.x.command', PWNED),
  'repo-external': configured('diff.external', PWNED),
  'repo-include': configured('include.path', '../../outside/git.cfg'),
  'repo-worktree': configured('core.worktree', '../../outside'),
  'repo-gpg': configured('gpg.program', PWNED),
  'repo-fsmonitor': configured('core.fsmonitor', `${PWNED}; false`),
  'repo-pager': configured('pager.log', PWNED),
  'repo-pretty': configured('pretty.signed', 'format:%G?'),
  'repo-format-pretty': configured('format.pretty', 'format:%GG'),
  'repo-husky': configured('core.hooksPath', '.husky/_'),
  'repo-blame-ignore': configured('blame.ignoreRevsFile', '.git-blame-ignore-revs'),
  // An ordinary repository that holds a bare one (vendor/x/config names a textconv).
  'bare-vendor': (ws) => {
    repository(ws);
    bareWithTextconv(ws, 'vendor/x');
  },
  // A bare repository made of five plain files under sub/, as five Writes would make it: it borrows
  // the outer repository's objects and names a textconv for the .txt files the outer one commits.
  'bare-sub': (ws) => {
    repository(ws, '*.txt diff=x\n');
    const sub = path.join(ws.cwd, 'sub');
    mkdirSync(path.join(sub, 'objects/info'), { recursive: true });
    mkdirSync(path.join(sub, 'refs/heads'), { recursive: true });
    writeFileSync(path.join(sub, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(sub, 'config'), `[core]\n\tbare = true\n[diff "x"]\n\ttextconv = ${PWNED}\n`);
    writeFileSync(path.join(sub, 'objects/info/alternates'), `${path.join(ws.cwd, '.git/objects')}\n`);
    writeFileSync(path.join(sub, 'refs/heads/main'), `${git(ws.cwd, 'rev-parse', 'HEAD')}\n`);
  },
  // A repository inside the working folder's repository, with its own config naming a textconv.
  'nested-repo': (ws) => {
    repository(ws);
    const nested = path.join(ws.cwd, 'vendor/y');
    mkdirSync(nested, { recursive: true });
    writeFileSync(path.join(nested, '.gitattributes'), '*.txt diff=x\n');
    writeFileSync(path.join(nested, 'y.txt'), 'y\n');
    git(nested, 'init', '-q', '-b', 'main');
    git(nested, 'add', '-A');
    git(nested, 'commit', '-q', '-m', 'y');
    git(nested, 'config', 'diff.x.textconv', PWNED);
  },
  // Files named like options, for wildcard injection.
  'option-files': (ws) => {
    writeFileSync(path.join(ws.cwd, 'notes.txt'), 'hello\n');
    writeFileSync(path.join(ws.cwd, '--pre=sh'), '');
    writeFileSync(path.join(ws.cwd, '--output=PWNED'), '');
    writeFileSync(path.join(ws.cwd, '--compress-program=sh'), '');
  },
  // The same names as dangling symbolic links (a cloned repository can carry them): bash's glob
  // lists every name the folder holds, whether or not the link leads anywhere.
  'dangling-option-files': (ws) => {
    writeFileSync(path.join(ws.cwd, 'notes.txt'), 'touch PWNED\nhello\n');
    symlinkSync(path.join(ws.cwd, 'nowhere'), path.join(ws.cwd, '--pre=sh'));
    symlinkSync(path.join(ws.cwd, 'nowhere'), path.join(ws.cwd, '--output=PWNED'));
  },
};
