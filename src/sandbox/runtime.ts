/**
 * What the sandbox needs once per agentpipe process: a private folder (mode 0700, removed at
 * exit) holding the seccomp filter, an empty folder and file for missing protected ones and the
 * session's temp folder; bubblewrap's path; and whether bubblewrap can start here at all, found
 * by starting it once with the arguments every run uses (user namespaces may be refused, as in
 * unprivileged containers or under AppArmor's userns restriction).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { agentpipeHome } from '../process/env.ts';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../process/executable.ts';
import { runProcessGroup } from '../process/run.ts';
import { seccompBytes, seccompSupported } from './seccomp.ts';

/** The per-process folder and its parts. */
export interface SandboxRuntime {
  dir: string;
  /** The seccomp program (absent where the architecture has none). */
  filter?: string;
  /** The same with unix sockets allowed (`network.allowAllUnixSockets`). */
  filterUnix?: string;
  emptyDir: string;
  /** An empty read-only file (mounted where a protected file is missing). */
  emptyFile: string;
  /** The session's temp folder: TMPDIR inside, writable by workspace commands. */
  tmpDir: string;
}

let runtime: SandboxRuntime | undefined;

/** The process's sandbox folder, made on first use and removed when the process exits. */
export function sandboxRuntime(): SandboxRuntime {
  if (runtime) return runtime;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-sbx-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const emptyDir = path.join(dir, 'empty');
  const tmpDir = path.join(dir, 'tmp');
  mkdirSync(emptyDir, { mode: 0o500 });
  mkdirSync(tmpDir, { mode: 0o700 });
  const emptyFile = path.join(dir, 'empty-file');
  writeFileSync(emptyFile, '', { mode: 0o400 });
  let filter: string | undefined;
  let filterUnix: string | undefined;
  if (seccompSupported()) {
    filter = path.join(dir, 'seccomp.bpf');
    filterUnix = path.join(dir, 'seccomp-unix.bpf');
    writeFileSync(filter, seccompBytes(), { mode: 0o400 });
    writeFileSync(filterUnix, seccompBytes(process.arch, { allowUnixSockets: true }), { mode: 0o400 });
  }
  runtime = { dir, filter, filterUnix, emptyDir, emptyFile, tmpDir };
  return runtime;
}

/** Whether bubblewrap can confine commands here, and if not, why. */
export type Availability = { ok: true; bwrap: string; seccomp: boolean } | { ok: false; reason: string };

const probes = new Map<string, Promise<Availability>>();

/** Finds bubblewrap and starts it once (cached per bwrap path). */
export function sandboxAvailability(bwrapPath?: string, env = process.env): Promise<Availability> {
  const key = bwrapPath ?? '';
  let probe = probes.get(key);
  if (!probe) {
    probe = probeBwrap(bwrapPath, env);
    probes.set(key, probe);
  }
  return probe;
}

async function probeBwrap(bwrapPath: string | undefined, env: NodeJS.ProcessEnv): Promise<Availability> {
  if (process.platform !== 'linux')
    return { ok: false, reason: `no sandbox backend on ${process.platform} (agentpipe's sandbox is Linux bubblewrap)` };
  const bwrap = findExecutable(bwrapPath ?? 'bwrap', env);
  if (!bwrap)
    return {
      ok: false,
      reason: bwrapPath
        ? `sandbox.bwrapPath ${bwrapPath} is not an executable`
        : 'bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)',
    };
  const remembered = probeMemo(bwrap, env);
  if (remembered.ok()) return { ok: true, bwrap, seccomp: seccompSupported() };
  const run = await runProcessGroup({
    command: [bwrap, ...NAMESPACES, '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'],
    cwd: '/',
    env: { PATH: env.PATH ?? '/usr/bin:/bin' },
    cap: 2000,
    timeoutMs: 10_000,
  });
  if (run.error) return { ok: false, reason: `bubblewrap could not be started: ${run.error.message}` };
  if (run.code !== 0) {
    const why = run.stderr.trim().split('\n').at(-1) || `exit code ${run.code ?? run.exitSignal}`;
    return { ok: false, reason: `bubblewrap cannot create its namespaces here (${why}); user namespaces refused?` };
  }
  remembered.save();
  return { ok: true, bwrap, seccomp: seccompSupported() };
}

/**
 * A successful probe is remembered in agentpipe's cache folder for this bubblewrap (path, size,
 * mtime), user, kernel and day, so a run's first command does not pay a second bubblewrap start.
 * Only success is kept: were the namespaces refused later, commands fail with bubblewrap's own
 * error (closed, never unconfined), and a failed probe is tried again by every run.
 */
function probeMemo(bwrap: string, env: NodeJS.ProcessEnv): { ok(): boolean; save(): void } {
  let key: string;
  try {
    const info = statSync(bwrap);
    const day = new Date().toISOString().slice(0, 10);
    key = [bwrap, info.size, info.mtimeMs, process.getuid?.(), os.release(), day].join('|');
  } catch {
    return { ok: () => false, save: () => {} };
  }
  const file = path.join(agentpipeHome(env), 'cache', 'sandbox-probe');
  return {
    ok: () => {
      try {
        return readFileSync(file, 'utf8') === key;
      } catch {
        return false;
      }
    },
    save: () => {
      try {
        mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        writeFileSync(file, key, { mode: 0o600 });
      } catch {
        // no cache: the next run probes again
      }
    },
  };
}

/** The namespaces of every sandbox: its own user, PID, IPC, UTS and cgroup namespaces, no capabilities. */
export const NAMESPACES = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--die-with-parent',
  '--cap-drop',
  'ALL',
];

let leaked: number[] | undefined;

/**
 * Descriptors this process holds without close-on-exec (inherited from whoever started
 * agentpipe: Node opens its own with it). A child would inherit them too, so the sandbox's
 * launcher closes them before bubblewrap starts.
 */
export function leakedDescriptors(): number[] {
  if (leaked) return leaked;
  leaked = [];
  let names: string[] = [];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return leaked; // no /proc: nothing known to close
  }
  for (const name of names) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    try {
      const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^flags:\s*([0-7]+)/m);
      // O_CLOEXEC is 02000000 in the octal flags.
      if (info && (parseInt(info[1]!, 8) & 0o2000000) === 0) leaked.push(fd);
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return leaked;
}
