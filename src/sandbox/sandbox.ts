/**
 * The one way agentpipe confines what it starts: `sandboxed(config, request)` turns a command
 * and its profile into the argv and environment to start instead (bubblewrap under a tiny
 * launcher that closes inherited descriptors and hands bubblewrap the seccomp filter). Every
 * caller of process/run.ts that runs something on the model's or the user's behalf goes through
 * it: Bash, Grep, command hooks, the API key helper, MCP stdio servers, wrapped CLIs,
 * `Agent.executeCommand`. Nothing above decides how a process is confined.
 *
 * Modes: `off` returns the command as it is; `auto` confines wherever bubblewrap can start and
 * otherwise says once on stderr which guarantee is missing and why; `required` throws
 * SandboxUnavailableError instead of running anything unconfined.
 */
import { AgentpipeError } from '../process/errors.ts';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { agentpipeHome } from '../process/env.ts';
import { neverRunFrom } from '../process/executable.ts';
import { holdForSession, type SandboxConfig, type SandboxProfile, type ShellSandbox } from './config.ts';
import { readDeniedPaths, trackedObjectStores } from './deny-read.ts';
import { mountArgs, releaseMountPoints } from './mounts.ts';
import { removePlanted, restoreLinks } from './after-run.ts';
import { launcher } from './launcher.ts';
import { CREDENTIAL_STORES, expandHome } from './protected-paths.ts';
import { pointRegistryFolders, type PointClaim } from './points.ts';
import { submoduleCheckouts } from './submodules.ts';
import { MAX_DEPTH, MAX_FOLDERS, nestedReposUnder, unseenFolders } from './nested-repos.ts';
import { leakedDescriptors, NAMESPACES, sandboxAvailability, sandboxRuntime, type Availability } from './runtime.ts';
import { resolvePolicy, type SandboxPolicy } from './settings.ts';
import type { Denial } from './egress-proxy.ts';
import type { NetworkGrant } from './network.ts';
import { credentialsOf, withheld } from './credentials.ts';

/** The sandbox is required (`--sandbox required`, `failIfUnavailable`) and cannot start here. */
export class SandboxUnavailableError extends AgentpipeError {
  static override readonly errorName: string = 'SandboxUnavailableError';
  /** Claude Code's startup failure reason for the same case. */
  readonly reason = 'sandbox_required_unavailable';
}

/** One process to start confined. */
export interface SandboxRequest {
  profile: SandboxProfile;
  /** A shell line (run with bash -c) or an argv. */
  command: string | string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** More folders it may write (a wrapped CLI's home, an MCP server's `sandbox.allowWrite`). */
  writable?: string[];
  /** Paths it may read although hidden (a wrapped CLI's home is a credential store). */
  readable?: string[];
  /**
   * What it may reach: `none`; `allowed`, the default of every profile but read-only: the hosts of
   * `sandbox.network.allowedDomains` through the egress proxy (nothing when the list is empty); or
   * those and `hosts` too (a wrapped CLI's API host, an MCP server's own `allowedDomains`).
   */
  network?: 'none' | 'allowed' | { hosts: string[] };
  /** The spawner gives the child `files` at their descriptors (process/run.ts): bubblewrap may then start directly. */
  files?: boolean;
}

/** What to start instead, and what to tidy once it ended. */
export interface SandboxedCommand {
  /** The argv to start (bubblewrap, its launcher, or the command itself when not confined). */
  argv: string[];
  /** Files to give the child at these descriptors (only when the request said it can: `files`). */
  files?: Record<number, string>;
  env: Record<string, string>;
  /** True when the command runs confined. */
  confined: boolean;
  /** Call when the process has ended: releases its mount points (removed when no other run uses them). */
  release(): void;
  /** The connections the egress proxy refused while it ran (until `release()`). */
  refused(): Denial[];
}

const policies = new WeakMap<SandboxConfig, SandboxPolicy>();

/** The merged policy of a configuration (validated once; a malformed block throws naming its file). */
export async function policyOf(config: SandboxConfig): Promise<SandboxPolicy> {
  let policy = policies.get(config);
  if (!policy) {
    const parse = config.layers.length ? (await import('./settings-schema.ts')).parseBlock : () => ({});
    policy = resolvePolicy(config, parse);
    policies.set(config, policy);
  }
  return policy;
}

let warnedUnavailable = false;

/**
 * Marks the folders this configuration's commands may write (the working folders, `allowWrite`) as ones no program is
 * found in by name (process/executable.ts), before agentpipe looks one up to start it outside the sandbox.
 */
export async function markWorkingFolders(config: SandboxConfig): Promise<void> {
  neverRunFrom(workingFolders(config, await policyOf(config)));
}

/** Whether commands of this configuration will be confined; throws SandboxUnavailableError when required and not. */
export async function sandboxState(config: SandboxConfig): Promise<Availability | { ok: false; off: true }> {
  const policy = await policyOf(config);
  // Before agentpipe looks for a program of its own (bwrap here, git for the mount plan's history look): none is
  // taken from a folder the model's commands may write, though none ran yet in this session (an earlier one's did).
  await markWorkingFolders(config);
  if (policy.mode === 'off') return { ok: false, off: true };
  const available = await sandboxAvailability(policy.bwrapPath, process.env);
  if (available.ok) return available;
  if (policy.mode === 'required')
    throw new SandboxUnavailableError(
      `the sandbox is required (--sandbox required, or sandbox.failIfUnavailable) but cannot start: ` +
        available.reason,
    );
  if (!warnedUnavailable) {
    warnedUnavailable = true;
    config.warn(
      `sandbox unavailable, commands run unconfined (no filesystem, network or process isolation): ` +
        `${available.reason}`,
    );
  }
  return available;
}

/** The folders a workspace command of `config` may write, as configured (the session's temp folder aside). */
function workingFolders(config: SandboxConfig, policy: SandboxPolicy): string[] {
  const home = (config.env ?? process.env).HOME || os.homedir();
  return [config.cwd, ...config.directories, ...policy.allowWrite.map((p) => expandHome(p, config.cwd, home))];
}

/** What the sandbox's settings mean for the permission check of a Bash call. */
export async function shellSandbox(config: SandboxConfig): Promise<ShellSandbox> {
  const policy = await policyOf(config);
  const confining = await sandboxState(config).then(
    (state) => state.ok,
    () => false,
  );
  return {
    confining,
    autoAllow: policy.autoAllowBashIfSandboxed,
    excluded: policy.excludedCommands,
    allowUnsandboxed: policy.allowUnsandboxedCommands,
  };
}

/** Where sandboxed commands of a session may write (`sandboxWritable`). */
export interface SandboxWritable {
  /** The folders writable inside: the working folders, the sandboxes' temp folder, `allowWrite`. */
  roots: string[];
  /** Paths kept read-only inside them (`denyWrite`); in each root, `PROTECTED` (mounts.ts) too. */
  denyWrite: string[];
  /** Paths hidden from every sandboxed command (agentpipe's home, credential stores, `denyRead`). */
  hidden: string[];
}

/** What a workspace command of `config` may write; undefined when commands are not confined (off, unavailable). */
export async function sandboxWritable(config: SandboxConfig): Promise<SandboxWritable | undefined> {
  // A sandbox that cannot start confines nothing: the file tools then write as they do with it off.
  const state = await sandboxState(config).catch(() => undefined);
  if (!state?.ok) return undefined;
  const policy = await policyOf(config);
  const env = config.env ?? process.env;
  const home = env.HOME || os.homedir();
  const expand = (p: string) => expandHome(p, config.cwd, home);
  return {
    roots: [...workingFolders(config, policy), sandboxRuntime().tmpDir],
    denyWrite: policy.denyWrite.map(expand),
    hidden: [
      agentpipeHome(env),
      ...policy.denyRead.map(expand),
      ...unique([home, os.homedir()]).flatMap((dir) => CREDENTIAL_STORES.map((name) => path.join(dir, name))),
    ],
  };
}

/** What the Read deny rules hide from what the model runs (Bash, Grep, a wrapped CLI), not from hooks or servers. */
async function readDeniedFor(config: SandboxConfig, profile: SandboxProfile, home: string): Promise<string[]> {
  if (!config.readDenied || !['read-only', 'workspace', 'harness'].includes(profile)) return [];
  const paths = readDeniedPaths(config.readDenied(), config.cwd, home);
  // A tracked one has a copy in the repository's objects (`git show HEAD:.env`): those are hidden too.
  return paths.length ? [...paths, ...(await trackedObjectStores(paths, config.env ?? process.env))] : [];
}

const searchLimited = new Set<string>();

/** Once per folder: its search for repositories stopped at its bounds (nested-repos.ts). */
function warnSearchLimit(config: SandboxConfig, root: string): void {
  if (searchLimited.has(root)) return;
  searchLimited.add(root);
  config.warn(
    `agentpipe: warning: sandbox: stopped looking for repositories in ${root} after ${MAX_FOLDERS} folders ` +
      `(${MAX_DEPTH} deep at most): a repository beyond them is writable by sandboxed commands; give a smaller --cwd`,
  );
}

/** The command to start for `request` under `config`'s sandbox. */
export async function sandboxed(config: SandboxConfig, request: SandboxRequest): Promise<SandboxedCommand> {
  const inner = typeof request.command === 'string' ? ['bash', '-c', request.command] : request.command;
  const state = await sandboxState(config);
  const policy = await policyOf(config);
  const credentials = credentialsOf(config, policy);
  const childEnv = definedOnly(request.env);
  if (!state.ok || request.profile === 'unsandboxed')
    return { argv: inner, env: withheld(childEnv, policy), confined: false, release: () => {}, refused: () => [] };
  const runtime = sandboxRuntime();
  const env = config.env ?? process.env;
  const home = env.HOME || os.homedir();
  // A wrapped CLI that is agentpipe (or keeps state there) gets a home of its own, never the session's.
  const ownHome = request.profile === 'harness' ? harnessHome(env) : undefined;
  // A wrapped CLI keeps the temp folder its environment names (its own files may be there).
  const tmp = request.profile === 'harness' && request.env.TMPDIR ? request.env.TMPDIR : runtime.tmpDir;
  const {
    args: mounts,
    claims,
    mustStayMissing,
    keptLinks,
  } = await mountsFor({ config, request, policy, runtime, env, home, tmp, ownHome });
  const grant = networkGrant(policy, request);
  // The proxy, its HTTP and SOCKS servers load only for a command that may reach some host.
  let egress;
  try {
    const inject = { list: credentials.credentials, plaintext: policy.allowPlaintextInject };
    egress = grant && (await (await import('./network.ts')).egressFor(config, grant, state.bwrap, inject));
  } catch (error) {
    releaseMountPoints(claims);
    throw error;
  }
  const watching = egress?.watch();
  let refused: Denial[] = [];
  const bwrapArgs = [
    ...NAMESPACES,
    ...(request.profile === 'harness' ? [] : ['--disable-userns']),
    ...(request.profile === 'mcp' ? ['--new-session'] : []),
    ...(egress ? [] : ['--unshare-net']),
    ...mounts,
    '--chdir',
    request.cwd,
    '--',
    ...inner,
  ];
  const filter = policy.allowAllUnixSockets ? runtime.filterUnix?.() : runtime.filter;
  const start = [...(egress?.join ?? []), state.bwrap];
  return {
    ...launcher(start, bwrapArgs, filter, leakedDescriptors(), request.files === true),
    env: {
      ...(request.profile === 'helper' ? childEnv : withheld(childEnv, policy)),
      ...(request.profile === 'helper' ? {} : credentials.env),
      ...egress?.env,
      TMPDIR: tmp,
      ...(ownHome ? { AGENTPIPE_HOME: ownHome } : {}),
    },
    confined: true,
    release: () => {
      keepPointsForSession(config, claims);
      for (const file of mustStayMissing) removePlanted(file, config.warn);
      restoreLinks(keptLinks, config.warn);
      refused = watching?.stop() ?? refused;
    },
    refused: () => refused,
  };
}

/** What one command's mounts depend on. */
interface MountScene {
  config: SandboxConfig;
  request: SandboxRequest;
  policy: SandboxPolicy;
  runtime: ReturnType<typeof sandboxRuntime>;
  env: NodeJS.ProcessEnv;
  home: string;
  /** The command's temp folder. */
  tmp: string;
  /** A wrapped CLI's own home, when it gets one. */
  ownHome: string | undefined;
}

/** The bubblewrap mounts of one command: what it may write, what stays hidden, what it may read. */
async function mountsFor(scene: MountScene): Promise<ReturnType<typeof mountArgs>> {
  const { config, request, policy, runtime, env, home, tmp, ownHome } = scene;
  const writes = request.profile !== 'read-only' && request.profile !== 'helper';
  const workDirs = [config.cwd, ...config.directories, request.cwd];
  const writable = writes
    ? [
        ...workDirs,
        ...policy.allowWrite.map((p) => expandHome(p, config.cwd, home)),
        ...(request.writable ?? []),
        ...(ownHome ? [ownHome] : []),
      ]
    : [];
  const hidden = withEarlier(config, [
    agentpipeHome(env),
    ...pointRegistryFolders(),
    ...policy.denyRead.map((p) => expandHome(p, config.cwd, home)),
    ...(await readDeniedFor(config, request.profile, home)),
  ]);
  const allowRead = [
    ...policy.allowRead.map((p) => expandHome(p, config.cwd, home)),
    ...(request.readable ?? []),
    ...(request.writable ?? []),
  ];
  const bound = [...writable, ...(writes ? [tmp] : [])];
  const nested = nestedReposUnder(
    unique(writable),
    (root) => warnSearchLimit(config, root),
    unseenFolders(hidden, allowRead, bound),
  );
  // What the command may write is no place agentpipe takes a program from (process/executable.ts).
  neverRunFrom(bound);
  return mountArgs({
    writable: bound,
    denyWrite: policy.denyWrite.map((p) => expandHome(p, config.cwd, home)),
    hidden,
    allowRead,
    credentialStores: request.profile !== 'helper',
    emptyDir: runtime.emptyDir,
    emptyFile: runtime.emptyFile,
    scratch: tmp === runtime.tmpDir ? [tmp] : [],
    maskMissingGit: request.profile !== 'harness',
    submodules: [...(await submoduleCheckouts(unique(writable), env)), ...nested.checkouts],
    bareRepos: nested.bare,
    homes: [home, os.homedir(), request.env.HOME ?? home],
  });
}

/** The hosts `request` may reach under `policy`; undefined for none (no proxy, no namespace to join). */
function networkGrant(policy: SandboxPolicy, request: SandboxRequest): NetworkGrant | undefined {
  const network = request.network ?? (request.profile === 'read-only' ? 'none' : 'allowed');
  if (network === 'none') return undefined;
  const allow = [...policy.allowedDomains, ...(network === 'allowed' ? [] : network.hosts)];
  return allow.length ? { allow, deny: policy.deniedDomains } : undefined;
}

const leadsTo = new WeakMap<SandboxConfig, Set<string>>();

/**
 * `hidden`, and what those named through a link led to in the session's earlier commands: a command that re-points a
 * link in a working folder (`denyRead: ["./alias"]`, `ln -sfn /tmp alias`) does not unhide what it named.
 */
function withEarlier(config: SandboxConfig, hidden: string[]): string[] {
  let earlier = leadsTo.get(config);
  if (!earlier) leadsTo.set(config, (earlier = new Set()));
  for (const given of hidden) {
    try {
      const resolved = realpathSync.native(given);
      if (resolved !== given) earlier.add(resolved);
    } catch {
      // missing: nothing to hide now
    }
  }
  return [...hidden, ...earlier];
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** The mount points each session holds until it closes, by point. */
const sessionPoints = new WeakMap<SandboxConfig, Map<string, PointClaim>>();

/**
 * A run ended: the session keeps one hold on each of its mount points until it closes (or the
 * process exits), so its next commands neither claim nor remove them again. The run's own holds
 * are given back; the session's, all at once when it closes (one look at the registry).
 */
function keepPointsForSession(config: SandboxConfig, claims: PointClaim[]): void {
  let points = sessionPoints.get(config);
  if (!points) {
    const kept = new Map<string, PointClaim>();
    sessionPoints.set(config, (points = kept));
    holdForSession(config, () => {
      sessionPoints.delete(config);
      releaseMountPoints([...kept.values()]);
    });
  }
  const giveBack: PointClaim[] = [];
  for (const claim of claims) {
    if (points.has(claim.point)) giveBack.push(claim);
    else points.set(claim.point, claim);
  }
  releaseMountPoints(giveBack);
}

/** `$AGENTPIPE_HOME/harness`: the agentpipe home of wrapped agents (made when missing). */
function harnessHome(env: Record<string, string | undefined>): string {
  const dir = path.join(agentpipeHome(env), 'harness');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
