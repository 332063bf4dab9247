/**
 * What the sandbox needs once per agentpipe process: a private folder (mode 0700, removed at
 * exit) holding the seccomp filter, an empty folder and file for missing protected ones and the
 * session's temp folder (those of killed processes are swept: temp-sweep.ts); bubblewrap's path;
 * and whether bubblewrap can start here at all, found by starting it once with the arguments every
 * run uses (user namespaces may be refused, as in unprivileged containers or under AppArmor's
 * userns restriction).
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { agentpipeHome } from '../process/env.ts';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../process/executable.ts';
import { runProcessGroup } from '../process/run.ts';
import { seccompBytes, seccompSupported } from './seccomp.ts';
import { accountHome } from './points.ts';
import { makePrivateFolderSync } from '../process/private-files.ts';
import { removeTempFolder, sweepLeftFolders, tempFolderPrefix } from './temp-sweep.ts';

/** The per-process temp folder and the parts every run mounts or reads. */
export interface SandboxRuntime {
  /** The seccomp program (absent where the architecture has none). */
  filter?: string;
  /** The same with unix sockets allowed (`network.allowAllUnixSockets`): checked or written on first use. */
  filterUnix?: () => string;
  /** An empty read-only folder (mounted where a protected folder is missing). */
  emptyDir: string;
  /** An empty read-only file (mounted where a protected file is missing). */
  emptyFile: string;
  /** The session's temp folder: TMPDIR inside, writable by workspace commands, removed at exit. */
  tmpDir: string;
}

type Parts = Omit<SandboxRuntime, 'tmpDir'>;

let runtime: SandboxRuntime | undefined;

/**
 * The process's sandbox runtime, made on first use: its temp folder (removed when the process exits), and the
 * parts, kept for the user in `~/.cache/agentpipe/sandbox` (beside the point registry, hidden from every sandbox)
 * so that a run makes and removes one folder, not five entries (each removal is a TRIM on a disk mounted with
 * `discard`, ~1 ms). Where that folder cannot be used, they are made for the process beside its temp folder.
 */
export function sandboxRuntime(): SandboxRuntime {
  if (runtime) return runtime;
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), tempFolderPrefix()));
  const removed = [tmpDir];
  process.once('exit', () => {
    // Through opened folders: a background command still running may swap a folder in its TMPDIR for a link.
    for (const dir of removed) removeTempFolder(dir);
    // Off the path of every command: what killed processes left is swept when one ends as it should.
    sweepLeftFolders(os.tmpdir());
  });
  let parts = sharedParts();
  if (!parts) {
    const dir = mkdtempSync(path.join(os.tmpdir(), tempFolderPrefix('parts')));
    removed.push(dir);
    parts = makeParts(dir);
  }
  runtime = { ...parts, tmpDir };
  return runtime;
}

/**
 * The user's kept parts, checked each time a process starts: the folder the user's own and private, the empty
 * folder and file empty, the filters as this version writes them (written again when not). Undefined when the
 * user's home cannot hold them, or what is there is not as it must be.
 */
function sharedParts(): Parts | undefined {
  const home = accountHome();
  if (home === undefined) return undefined;
  const dir = path.join(home, '.cache', 'agentpipe', 'sandbox');
  try {
    makePrivateFolderSync(dir);
    const info = lstatSync(dir);
    if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0) return undefined;
    const parts = makeParts(dir);
    const empty = lstatSync(parts.emptyDir);
    const file = lstatSync(parts.emptyFile);
    if (!empty.isDirectory() || readdirSync(parts.emptyDir).length > 0 || !file.isFile() || file.size > 0)
      return undefined;
    return parts;
  } catch {
    return undefined;
  }
}

/** The parts in `dir`, made where missing: an empty folder, an empty file and the seccomp filters. */
function makeParts(dir: string): Parts {
  const emptyDir = path.join(dir, 'empty');
  const emptyFile = path.join(dir, 'empty-file');
  mkdirSync(emptyDir, { mode: 0o500, recursive: true });
  if (!existsSync(emptyFile)) writeFileSync(emptyFile, '', { mode: 0o400 });
  if (!seccompSupported()) return { emptyDir, emptyFile };
  let unix: string | undefined;
  return {
    emptyDir,
    emptyFile,
    filter: keptFile(dir, 'seccomp', seccompBytes()),
    // Few sessions allow unix sockets: their filter is not built and compared at every start.
    filterUnix: () => (unix ??= keptFile(dir, 'seccomp-unix', seccompBytes(process.arch, { allowUnixSockets: true }))),
  };
}

/** `<dir>/<name>-<arch>.bpf` holding `bytes`: written (by a rename, never seen half-written) when it does not. */
function keptFile(dir: string, name: string, bytes: Uint8Array): string {
  const file = path.join(dir, `${name}-${process.arch}.bpf`);
  try {
    if (Buffer.from(bytes).equals(readFileSync(file))) return file;
  } catch {
    // not there yet
  }
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, bytes, { mode: 0o400 });
  renameSync(temp, file);
  return file;
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
 * launcher closes them before bubblewrap starts. Read synchronously, once per process: the same
 * reads through fs/promises cost ~6 ms of CPU against ~0.6 ms (measured), which on a busy machine
 * the command waits for all the same.
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
