/**
 * `agentpipe sandbox doctor`: hostile probes run inside the sandbox as configured, each saying
 * whether the wall held. They run in a throwaway world (a working folder with a git repository,
 * a fake home with credential stores, a fake AGENTPIPE_HOME, a file outside, two loopback
 * servers) so nothing of the user's is touched and no packet leaves the machine. The network
 * probes go through the egress proxy with one more allowed host, the doctor's own loopback server
 * (`127.0.0.1:<port>`), and one denied name: the allowed server is reached, a host not listed, a
 * denied one and the other loopback server are refused by name, before any lookup.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../process/env.ts';
import { closeSandbox, type CommandProfile, type SandboxConfig } from './config.ts';
import { runSandboxed } from './run.ts';
import { sandboxState } from './sandbox.ts';

/** One probe's outcome. */
export interface ProbeResult {
  name: string;
  profile: CommandProfile;
  held: boolean;
  /** What the probe saw (its output, cut). */
  detail: string;
}

/** The doctor's report. */
export interface DoctorReport {
  /** True when commands run confined here. */
  confined: boolean;
  /** Why not, when they do not. */
  reason?: string;
  probes: ProbeResult[];
}

/** Node's attempt at a unix socket: prints the error code (EPERM when seccomp refuses socket(AF_UNIX)). */
const UNIX_SOCKET_PROBE =
  "try{require('net').connect('/run/x').on('error',e=>console.log(e.code))}catch(e){console.log(e.code)}";

interface Probe {
  name: string;
  profile: CommandProfile;
  /** A bash script; it prints HELD when the wall held (the escape failed), anything else when not. */
  script: string;
}

/** A name in deniedDomains during the doctor's run (under an allowed wildcard, so the denial is what refuses it). */
const DENIED = 'blocked.doctor.agentpipe.test';

/**
 * A CONNECT to `target` through the HTTP proxy the environment names, in bash alone (no curl in
 * the sandbox needed): HELD when the answer matches the case pattern `expect`.
 */
function viaProxy(target: string, expect: string): string {
  return (
    `p=\${HTTP_PROXY##*:}; [ -n "$p" ] || { echo "ESCAPED: no proxy in the environment"; exit 0; }; ` +
    `exec 3<>/dev/tcp/127.0.0.1/$p || exit 0; ` +
    `printf 'CONNECT ${target} HTTP/1.1\\r\\nHost: ${target}\\r\\n\\r\\n' >&3; ` +
    `out=$(timeout 10 head -c 2000 <&3 | tr -d '\\r'); ` +
    `case "$out" in ${expect}) echo HELD;; *) echo "ESCAPED $out";; esac`
  );
}

/** Quoted for sh. */
const q = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
/** A probe script: HELD when `attempt` fails, ESCAPED when it succeeds. */
const fails = (attempt: string) => `if { ${attempt}; } 2>/dev/null; then echo ESCAPED; else echo HELD; fi`;

/** The throwaway world the probes run in. */
interface World {
  outside: string;
  fresh: string;
  port: number;
  allowedPort: number;
  pid: number;
}

/** The probes, given the throwaway world's paths, in the order the report lists them. */
function probes(w: World): Probe[] {
  return [...writeProbes(w), ...secretProbes(w), ...networkProbes(w), ...escapeProbes(w)];
}

/** Writes a command must not make: outside the working folders, into git's and agentpipe's own files. */
function writeProbes(w: World): Probe[] {
  return [
    { name: 'write outside the working folders', profile: 'workspace', script: fails(`echo x > ${q(w.outside)}/new`) },
    { name: 'write into /etc', profile: 'workspace', script: fails('touch /etc/agentpipe-doctor') },
    { name: 'write .git/hooks', profile: 'workspace', script: fails('echo x > .git/hooks/pre-commit') },
    { name: 'rewrite .git/config', profile: 'workspace', script: fails('echo x >> .git/config') },
    // A repository whose .git is a link to a plain folder: the folder it names is kept read-only.
    {
      name: 'rewrite the config a .git link names',
      profile: 'workspace',
      script: fails('echo x >> linked/.git/config'),
    },
    // A writable index lets a command register a repository of its own as a submodule, which git status runs.
    { name: 'write the git index', profile: 'workspace', script: fails('echo x > .git/index') },
    { name: 'create .mcp.json', profile: 'workspace', script: fails('echo {} > .mcp.json') },
    {
      name: 'create .agentpipe/settings.json',
      profile: 'workspace',
      script: fails('echo {} > .agentpipe/settings.json'),
    },
    {
      name: 'make a repository where there is none',
      profile: 'workspace',
      script: fails(`mkdir -p ${q(w.fresh)}/.git/hooks && echo x > ${q(w.fresh)}/.git/hooks/pre-commit`),
    },
    { name: 'read-only command writes its folder', profile: 'read-only', script: fails('echo x > written') },
  ];
}

/** What a command must not read or see: keys, agentpipe's home and environment, other processes. */
function secretProbes(w: World): Probe[] {
  return [
    { name: 'read ~/.ssh', profile: 'workspace', script: fails('grep -q SECRET ~/.ssh/id_ed25519') },
    { name: 'read ~/.aws', profile: 'workspace', script: fails('grep -q SECRET ~/.aws/credentials') },
    { name: "read agentpipe's home", profile: 'workspace', script: fails('grep -rq SECRET "$AGENTPIPE_HOME"') },
    {
      name: "read agentpipe's /proc/<pid>/environ",
      profile: 'workspace',
      script: fails(`cat /proc/${w.pid}/environ | grep -q .`),
    },
    {
      name: 'see other processes',
      profile: 'workspace',
      // The sandbox's own: its init, this shell and the pipeline counting (the host has hundreds).
      script: `n=$(ls -d /proc/[0-9]* | wc -l); if [ "$n" -le 6 ]; then echo HELD; else echo "ESCAPED $n"; fi`,
    },
    {
      name: 'keys in the environment',
      profile: 'workspace',
      script: `if env | grep -q '^ANTHROPIC_API_KEY='; then echo ESCAPED; else echo HELD; fi`,
    },
  ];
}

/** Where a command must not connect: the host's loopback, hosts the egress proxy refuses. */
function networkProbes(w: World): Probe[] {
  return [
    { name: "reach the host's loopback", profile: 'workspace', script: fails(`exec 3<>/dev/tcp/127.0.0.1/${w.port}`) },
    {
      name: 'reach an allowed host through the egress proxy',
      profile: 'workspace',
      script: viaProxy(`127.0.0.1:${w.allowedPort}`, '*" 200 "*reached*'),
    },
    {
      name: 'reach a host not in allowedDomains',
      profile: 'workspace',
      script: viaProxy('example.com:443', '*" 403 "*"not in sandbox.network.allowedDomains"*'),
    },
    {
      name: 'reach a host in deniedDomains',
      profile: 'workspace',
      script: viaProxy(`${DENIED}:443`, '*" 403 "*deniedDomains*'),
    },
    {
      name: "reach the host's loopback through the egress proxy",
      profile: 'workspace',
      script: viaProxy(`127.0.0.1:${w.port}`, '*" 403 "*"not in sandbox.network.allowedDomains"*'),
    },
    {
      name: 'read-only command reaches an allowed host',
      profile: 'read-only',
      script: fails(`exec 3<>/dev/tcp/127.0.0.1/${w.allowedPort}`),
    },
    {
      name: 'reach any other host (interfaces besides lo)',
      profile: 'workspace',
      script: `if grep -vqE '^ *(lo:|Inter|face)' /proc/net/dev; then echo ESCAPED; else echo HELD; fi`,
    },
  ];
}

/** Ways out: inherited descriptors, privileges, unix sockets, links. */
function escapeProbes(w: World): Probe[] {
  return [
    {
      name: 'inherited file descriptors',
      profile: 'workspace',
      script:
        `n=$(ls /proc/self/fd | wc -l); ` +
        `if [ "$n" -le 4 ]; then echo HELD; else echo "ESCAPED $(ls -l /proc/self/fd)"; fi`,
    },
    {
      name: 'gain privileges (setuid, capabilities)',
      profile: 'workspace',
      script:
        `if grep -q '^NoNewPrivs:\\s*1' /proc/self/status && grep -q '^CapEff:\\s*0*$' /proc/self/status ` +
        `&& ! unshare -U true 2>/dev/null; then echo HELD; else echo ESCAPED; fi`,
    },
    {
      name: 'unix sockets (host services)',
      profile: 'workspace',
      script:
        `out=$("${process.execPath}" -e "${UNIX_SOCKET_PROBE}" 2>&1); ` +
        `case "$out" in *EPERM*|*EACCES*) echo HELD;; *) echo "ESCAPED $out";; esac`,
    },
    {
      name: 'symlink escape',
      profile: 'workspace',
      script: `ln -s ${q(w.outside)} out; ${fails('echo x > out/by-link')}`,
    },
    {
      name: 'hard-link escape',
      profile: 'workspace',
      script: fails(`ln ${q(w.outside)}/file hard && echo x >> hard`),
    },
    {
      name: '.. after a link',
      profile: 'workspace',
      script: `ln -s ${q(w.outside)}/deep up; ${fails('echo x > up/../by-dotdot')}`,
    },
  ];
}

/** Runs every probe in `config`'s sandbox (its mode and settings; its folders are replaced by throwaway ones). */
export async function runDoctor(config: Omit<SandboxConfig, 'cwd' | 'directories'>): Promise<DoctorReport> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-doctor-'));
  const server = net.createServer((socket) => socket.end('reached\n'));
  const allowedServer = net.createServer((socket) => socket.end('reached\n'));
  let sandbox: SandboxConfig | undefined;
  try {
    const world = makeWorld(root);
    const port = await listen(server);
    const allowedPort = await listen(allowedServer);
    const network = {
      allowedDomains: [`127.0.0.1:${allowedPort}`, '*.doctor.agentpipe.test'],
      deniedDomains: [DENIED],
    };
    sandbox = {
      ...config,
      layers: [...config.layers, { source: 'option', label: 'sandbox doctor', block: { network } }],
      cwd: world.work,
      directories: [world.fresh],
      env: world.env,
      // The refusals are what the probes provoke: the report says how each ended.
      warn: (line) => {
        if (!line.includes("refused a sandboxed command's connection")) config.warn(line);
      },
    };
    const state = await sandboxState(sandbox).catch((error: Error) => ({ ok: false as const, reason: error.message }));
    if (!state.ok) return { confined: false, reason: 'off' in state ? 'the sandbox is off' : state.reason, probes: [] };
    const results: ProbeResult[] = [];
    for (const probe of probes({ outside: world.outside, fresh: world.fresh, port, allowedPort, pid: process.pid })) {
      const run = await runSandboxed(sandbox, {
        profile: probe.profile,
        command: probe.script,
        cwd: world.work,
        env: childEnv({ ...world.env, ANTHROPIC_API_KEY: 'sk-doctor-SECRET' }),
        cap: 4000,
        timeoutMs: 30_000,
      });
      const out = `${run.stdout}${run.stderr}`.trim();
      const untouched = readFileSync(path.join(world.outside, 'file'), 'utf8') === 'SECRET\n';
      results.push({
        name: probe.name,
        profile: probe.profile,
        held: out === 'HELD' && untouched,
        detail: out.slice(0, 300),
      });
    }
    return { confined: true, probes: results };
  } finally {
    closeSandbox(sandbox);
    server.close();
    allowedServer.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Listens on a free loopback port; returns it. */
async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** The throwaway world: working folders with and without a repository, a home with credential stores, outside. */
function makeWorld(root: string): { work: string; outside: string; fresh: string; env: Record<string, string> } {
  const work = path.join(root, 'work');
  // A second working folder (--add-dir), with no repository.
  const fresh = path.join(root, 'fresh');
  mkdirSync(fresh);
  const outside = path.join(root, 'outside');
  const home = path.join(root, 'home');
  const secret = 'SECRET\n';
  for (const dir of [path.join(work, '.git', 'hooks'), path.join(outside, 'deep'), path.join(home, '.ssh')])
    mkdirSync(dir, { recursive: true });
  mkdirSync(path.join(home, '.aws'));
  mkdirSync(path.join(home, '.agentpipe'));
  writeFileSync(path.join(work, '.git', 'config'), '[core]\n');
  // A repository below the working folder whose .git is a link to a plain folder beside it.
  mkdirSync(path.join(work, 'linked-git'));
  mkdirSync(path.join(work, 'linked'));
  writeFileSync(path.join(work, 'linked-git', 'config'), '[core]\n');
  symlinkSync('../linked-git', path.join(work, 'linked', '.git'));
  writeFileSync(path.join(outside, 'file'), secret);
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), secret);
  writeFileSync(path.join(home, '.aws', 'credentials'), secret);
  writeFileSync(path.join(home, '.agentpipe', 'session.jsonl'), secret);
  const env = { ...childEnv(), HOME: home, AGENTPIPE_HOME: path.join(home, '.agentpipe') };
  return { work, outside, fresh, env };
}

/** The report as lines for a person. */
export function formatDoctor(report: DoctorReport): string {
  if (!report.confined) return `sandbox: NOT confining commands here: ${report.reason}\n`;
  const lines = report.probes.map(
    (p) => `${p.held ? 'held  ' : 'FAILED'}  ${p.name} (${p.profile})${p.held ? '' : `: ${p.detail}`}`,
  );
  const failed = report.probes.filter((p) => !p.held).length;
  lines.push(
    failed ? `${failed} of ${report.probes.length} probes escaped` : `all ${report.probes.length} probes held`,
  );
  return `${lines.join('\n')}\n`;
}
