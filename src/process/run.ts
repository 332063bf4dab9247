/**
 * One way to run a command for agentpipe: Bash tool calls, command hooks, the API key helper and
 * `Agent.executeCommand` all use it. The command runs in its own process group (so its children
 * can be stopped with it), output is capped, and a timeout or an abort stops the whole group in
 * stages: SIGTERM, then SIGKILL after a grace period (timers unref'd). When the command exits,
 * whatever it left running in its group is killed too; a stopped command's output pipes are let
 * go shortly after it exits (a process that left the group, `setsid`, may hold them open). Every
 * live group is in a registry that the CLI empties on every exit path (see `killAllGroups`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

/** What to run and how. */
export interface ProcessGroupOptions {
  /** A shell line (run with `bash -c`) or an argv (run directly). */
  command: string | string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; stdin is /dev/null without it. */
  stdin?: string;
  /**
   * A long-lived child spoken to over pipes (a wrapped agent CLI): stdin stays open as `input`,
   * stdout is not collected but handed over as `output` for the caller to read at its own pace.
   */
  interactive?: boolean;
  /** Characters kept per stream (default 30,000); the rest is counted, not kept. */
  cap?: number;
  /** Stops the group after this long (ms); none when undefined. */
  timeoutMs?: number;
  /** Stops the group when aborted. */
  signal?: AbortSignal;
  /** SIGTERM → SIGKILL grace (ms, default 2000). */
  graceMs?: number;
  /** Each chunk as it comes. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
  /** Files opened read-only and given to the child at these descriptors, past 2 (bubblewrap's seccomp filter). */
  files?: Record<number, string>;
}

/** How a run ended. */
export interface ProcessGroupResult {
  /** Exit code; null when a signal ended it or it never started. */
  code: number | null;
  /** The signal that ended it, if one did. */
  exitSignal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Characters dropped past the cap, per stream. */
  dropped: { stdout: number; stderr: number };
  /** Set when agentpipe stopped it. */
  stopped?: 'timeout' | 'aborted';
  /** Set when it could not be started. */
  error?: Error;
}

/** A started run: its result, and a way to stop it early. */
export interface RunningGroup {
  readonly pid: number | undefined;
  readonly done: Promise<ProcessGroupResult>;
  /** With `interactive`: the child's stdin. */
  readonly input?: Writable;
  /** With `interactive`: the child's stdout (paused until read). */
  readonly output?: Readable;
  /** SIGTERM to the group, SIGKILL after the grace period (at once with `now`). */
  stop(reason?: 'timeout' | 'aborted', now?: boolean): void;
}

const live = new Set<number>();
/** Long-lived helpers (./helper.ts): killed on exit like the groups, not counted among the commands running. */
const helpers = new Set<number>();

/** Puts a helper's process group in (or out of) the registry that `killAllGroups` empties. */
export function trackHelper(pid: number, running: boolean): void {
  if (running) helpers.add(pid);
  else helpers.delete(pid);
}

const KILL_AT_ONCE = Symbol.for('agentpipe.process.killAtOnce');

/**
 * Marks an abort reason as "no grace": a group stopped for it gets SIGKILL at once instead of SIGTERM and a grace
 * period (a cluster run that is losing its lease must stop its tools before the lease can expire).
 */
export function killAtOnce<E extends Error>(reason: E): E {
  Object.defineProperty(reason, KILL_AT_ONCE, { value: true });
  return reason;
}

/** True for an abort reason marked with `killAtOnce`. */
export const isKillAtOnce = (reason: unknown): boolean =>
  typeof reason === 'object' && reason !== null && KILL_AT_ONCE in reason;

/** How long a stopped command's pipes stay open after it exited (see `letGo`). */
const LET_GO_MS = 250;

/** Sends `signal` to a whole process group; false when it is gone. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Kills every process group still running (SIGKILL): for exit paths, where nothing can wait. */
export function killAllGroups(): number {
  let killed = 0;
  for (const pid of [...live, ...helpers]) if (signalGroup(pid, 'SIGKILL')) killed++;
  live.clear();
  helpers.clear();
  return killed;
}

/** Told of every process group as it starts and ends (a cluster worker records them: cluster/worker/work-dir.ts). */
export interface GroupWatcher {
  started(pid: number): void;
  ended(pid: number): void;
}

let watcher: GroupWatcher | undefined;

/** Sets (or, with undefined, removes) the one watcher of process groups. */
export function watchGroups(next: GroupWatcher | undefined): void {
  watcher = next;
}

/** The number of process groups running now. */
export function liveGroupCount(): number {
  return live.size;
}

/** Spawns the command as the leader of its own group, with the `files` it is handed as descriptors. */
function spawnGroup(o: ProcessGroupOptions): ChildProcess {
  const [file, args] =
    typeof o.command === 'string' ? ['bash', ['-c', o.command]] : [o.command[0]!, o.command.slice(1)];
  const stdin = o.stdin === undefined && !o.interactive ? 'ignore' : 'pipe';
  const stdio: Array<'ignore' | 'pipe' | number> = [stdin, 'pipe', 'pipe'];
  const opened = Object.entries(o.files ?? {}).map(([fd, file]) => (stdio[Number(fd)] = openSync(file, 'r')));
  try {
    return spawn(file, args, {
      cwd: o.cwd,
      env: o.env,
      detached: true,
      stdio: Array.from(stdio, (s) => s ?? 'ignore'),
    });
  } finally {
    for (const fd of opened) closeSync(fd); // the child has its own copies
  }
}

/** Starts the command; see the module comment. */
export function startProcessGroup(o: ProcessGroupOptions): RunningGroup {
  const cap = o.cap ?? 30_000;
  const child = spawnGroup(o);
  const pid = child.pid;
  if (pid !== undefined) {
    live.add(pid);
    watcher?.started(pid);
  }
  const out = { stdout: '', stderr: '' };
  const dropped = { stdout: 0, stderr: 0 };
  let stopped: 'timeout' | 'aborted' | undefined;
  const keep = (stream: 'stdout' | 'stderr') => (chunk: string) => {
    const room = cap - out[stream].length;
    if (room >= chunk.length) out[stream] += chunk;
    else {
      if (room > 0) out[stream] += chunk.slice(0, room);
      dropped[stream] += chunk.length - Math.max(0, room);
    }
    o.onOutput?.(stream, chunk);
  };
  if (!o.interactive) child.stdout?.setEncoding('utf8').on('data', keep('stdout'));
  child.stderr?.setEncoding('utf8').on('data', keep('stderr'));
  if (child.stdin) {
    child.stdin.on('error', () => {}); // the command may exit without reading its input
    if (!o.interactive) child.stdin.end(o.stdin);
  }
  let exited = false;
  // A stopped command that exited while something outside its group (`setsid`, a daemon) still holds
  // its output pipes: their ends are closed after a moment, or the run would wait for that process.
  // Only the pipes read here, as they come: an interactive child's output is its caller's to read to the end.
  const letGo = () =>
    setTimeout(() => {
      if (!o.interactive) child.stdout?.destroy();
      child.stderr?.destroy();
    }, LET_GO_MS).unref();
  child.once('exit', () => {
    exited = true;
    if (stopped) letGo();
  });
  const stop = (reason: 'timeout' | 'aborted' = 'aborted', now = false) => {
    const first = stopped === undefined;
    stopped ??= reason;
    if (now) signalGroup(pid, 'SIGKILL');
    else {
      signalGroup(pid, 'SIGTERM');
      setTimeout(() => signalGroup(pid, 'SIGKILL'), o.graceMs ?? 2000).unref();
    }
    if (first && exited) letGo();
  };
  const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), o.timeoutMs);
  const onAbort = () => stop('aborted', isKillAtOnce(o.signal?.reason));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted) onAbort();
  const done = new Promise<ProcessGroupResult>((resolve) => {
    const finish = (code: number | null, exitSignal: NodeJS.Signals | null, error?: Error) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      // The command is gone; anything it left behind in its group goes with it.
      signalGroup(pid, 'SIGKILL');
      if (pid !== undefined && live.delete(pid)) watcher?.ended(pid);
      resolve({ code, exitSignal, ...out, dropped, ...(stopped ? { stopped } : {}), ...(error ? { error } : {}) });
    };
    child.once('error', (error) => finish(null, null, error));
    child.once('close', (code, exitSignal) => finish(code, exitSignal));
  });
  return {
    pid,
    done,
    stop,
    ...(o.interactive ? { input: child.stdin ?? undefined, output: child.stdout ?? undefined } : {}),
  };
}

/** Runs the command to its end. */
export function runProcessGroup(o: ProcessGroupOptions): Promise<ProcessGroupResult> {
  return startProcessGroup(o).done;
}
