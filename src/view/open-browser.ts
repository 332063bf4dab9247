/** `--open`: hands the URL to the desktop's opener when there is one; quietly does nothing otherwise. */
import { spawn } from 'node:child_process';
import { findExecutable } from '../process/executable.ts';

export function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? undefined : 'xdg-open';
  // Found as agentpipe finds its programs: not in a relative PATH entry (`.`: the folder `view` runs in, a project's).
  const opener = command ? findExecutable(command) : undefined;
  if (process.platform === 'win32') {
    spawn('cmd', ['/c', 'start', '', url], { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
    return;
  }
  if (!opener) return;
  spawn(opener, [url], { stdio: 'ignore', detached: true })
    .on('error', () => {})
    .unref();
}
