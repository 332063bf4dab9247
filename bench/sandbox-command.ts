/**
 * 11b. What the sandbox costs a command in a running session: `runSandboxed` of `true` (the workspace profile, the
 * mounts of a Bash call in a plain folder) beside the same command not confined, in this process, alternating. Of it,
 * agentpipe's share: the plan (`sandboxed()`: the mounts, the points claimed, the launcher), with the process's first
 * plan apart, as it runs the sandbox's code cold (what a one-turn CLI run pays on top). With bubblewrap's own start
 * (its namespaces and mounts, nothing of agentpipe's) for the floor.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { closeSandbox, type SandboxConfig, type SandboxProfile } from '../src/sandbox/config.ts';
import { runSandboxed } from '../src/sandbox/run.ts';
import { sandboxed } from '../src/sandbox/sandbox.ts';
import { NAMESPACES } from '../src/sandbox/runtime.ts';
import { median } from './stats.ts';

type Row = [string, string, string];

export async function benchSandboxCommand(dir: string, fmt: (ms: number, digits: number) => string): Promise<Row[]> {
  const work = path.join(dir, 'sandbox-command');
  mkdirSync(work, { recursive: true });
  const config: SandboxConfig = { mode: 'required', layers: [], cwd: work, directories: [], warn: () => {} };
  const run = async (profile: SandboxProfile): Promise<number> => {
    const started = performance.now();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const result = await runSandboxed(config, { profile, command: ['true'], cwd: work, env, timeoutMs: 30_000 });
    if (result.code !== 0) throw new Error(`true ended with ${result.code}: ${result.error?.message ?? result.stderr}`);
    return performance.now() - started;
  };
  const plan = async (): Promise<number> => {
    const started = performance.now();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const command = await sandboxed(config, { profile: 'workspace', command: ['true'], cwd: work, env, files: true });
    const ms = performance.now() - started;
    command.release();
    return ms;
  };
  try {
    const firstPlan = await plan();
    const plans: number[] = [];
    const confined: number[] = [];
    const plain: number[] = [];
    const bwrapAlone: number[] = [];
    for (let i = 0; i < 20; i++) {
      plans.push(await plan());
      confined.push(await run('workspace'));
      plain.push(await run('unsandboxed'));
      bwrapAlone.push(await timeSpawn('bwrap', [...FLOOR, '--bind', work, work, '--', 'true']));
    }
    const over = (runs: number[]) => fmt(median(runs.map((ms, i) => ms - plain[i]!)), 1);
    return [
      [
        'a sandboxed command in a running session (`true`, workspace profile), after the first (median of 20)',
        `${fmt(median(confined), 1)} ms, ${over(confined)} ms above the same not confined ` +
          `(${fmt(median(plain), 1)} ms)`,
        `${(median(confined) / median(plain)).toFixed(2)} × not confined`,
      ],
      [
        "of it, agentpipe's plan of the command's mounts (`sandboxed()`), a process's first apart (median of 20)",
        `${fmt(median(plans), 1)} ms; the process's first ${fmt(firstPlan, 1)} ms (the sandbox's code run cold, ` +
          'loaded from source: the CLI loads it bundled)',
        `${(median(plans) / median(plain)).toFixed(2)} × the command not confined`,
      ],
      [
        "bubblewrap alone: the sandbox's namespaces, /, /dev, /proc and the folder, `true` inside (median of 20)",
        `${fmt(median(bwrapAlone), 1)} ms, ${over(bwrapAlone)} ms above \`true\` not confined`,
        `${(median(bwrapAlone) / median(plain)).toFixed(2)} × not confined`,
      ],
    ];
  } finally {
    closeSandbox(config);
  }
}

/** What every workspace command gets from bubblewrap before its own mounts (sandbox.ts; no seccomp filter). */
const FLOOR = [
  ...NAMESPACES,
  '--disable-userns',
  '--unshare-net',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
];

async function timeSpawn(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'inherit'] });
  child.stdin.end();
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`${command} ended with ${code}`);
  return performance.now() - started;
}
