/** A real `git clone` of a local repository holding `files`: what a user gets from cloning someone else's project. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scratchDir } from './temp.ts';

/** Commits `files` (relative path → content) in a new repository and clones it; the clone's real path. */
export function clonedRepository(files: Record<string, string>): string {
  const origin = scratchDir('origin-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(origin, name)), { recursive: true });
    writeFileSync(path.join(origin, name), content);
  }
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });
  git(origin, 'init', '-q');
  git(origin, 'add', '.');
  git(origin, 'commit', '-q', '-m', 'project');
  const parent = scratchDir('clone-');
  git(parent, 'clone', '-q', origin, 'repo');
  return realpathSync(path.join(parent, 'repo'));
}
