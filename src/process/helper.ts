/**
 * A long-lived helper process agentpipe talks to over Node's IPC channel (the sandbox's network
 * namespace holder, which hands over listening sockets): its own process group, killed on every
 * exit path with the command groups (see `killAllGroups`). It keeps agentpipe alive while it
 * starts (agentpipe waits for its first messages), and not once `settled()`: a helper never keeps
 * agentpipe from exiting on its own. Its stderr tail explains an early exit.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { signalGroup, trackHelper } from './run.ts';

/** What to start and what to do with its messages. */
export interface HelperOptions {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** Each message, with the handle (a server or a socket) it carries, if any. */
  onMessage: (message: unknown, handle: unknown) => void;
  /** Once, when it has ended (or could not start): the tail of its stderr. */
  onExit: (why: string) => void;
}

/** A running helper. */
export interface Helper {
  readonly pid: number | undefined;
  /** It has started: from now on it does not keep agentpipe alive. */
  settled(): void;
  /** SIGKILL to its group (it holds nothing that needs a clean stop). */
  stop(): void;
}

/** Starts the helper; see the module comment. */
export function startHelper(o: HelperOptions): Helper {
  const child = spawn(o.command[0]!, o.command.slice(1), {
    cwd: o.cwd,
    env: o.env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  const pid = child.pid;
  if (pid !== undefined) trackHelper(pid, true);
  let stderr = '';
  const err = child.stderr as (Readable & { unref?: () => void }) | null;
  err?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  child.on('message', (message, handle) => o.onMessage(message, handle));
  let ended = false;
  const end = (why: string) => {
    if (ended) return;
    ended = true;
    if (pid !== undefined) trackHelper(pid, false);
    o.onExit(`${why}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
  };
  child.once('error', (error) => end(`could not start: ${error.message}`));
  child.once('exit', (code, signal) => end(`exited (${signal ?? `code ${code}`})`));
  return {
    pid,
    settled: () => {
      err?.unref?.();
      child.unref();
      child.channel?.unref();
    },
    stop: () => {
      signalGroup(pid, 'SIGKILL');
    },
  };
}
