/**
 * Spawns the real CLI. By default the built one (bin/agentpipe.js → dist/, as users run it);
 * with AGENTPIPE_CLI_SOURCE=1 the TypeScript sources directly (no build step while developing).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { after } from 'node:test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratchDir } from './temp.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The executable path to hand to the official SDK's `pathToClaudeCodeExecutable`. */
export const CLI_PATH = process.env.AGENTPIPE_CLI_SOURCE
  ? path.join(ROOT, 'src/cli/entry.ts')
  : path.join(ROOT, 'bin/agentpipe.js');
/** Transcripts of test runs go to a throwaway folder, never the user's ~/.agentpipe. */
process.env.AGENTPIPE_HOME ??= scratchDir('agentpipe-home-');

/** Output of a finished run. */
export interface RunResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The flags of a run on the scripted model with stream-json output (then the caller's own flags). */
export function scriptedStreamArgs(script: string): string[] {
  return ['--model', 'scripted', '--script', script, '--output-format', 'stream-json', '--verbose'];
}

/** CLIs started by this test file and still running. */
const running = new Set<ChildProcess>();
// A test that failed while its CLI ran must not keep the test file (and the whole suite) waiting on it. Only under the
// test runner: scripts that share these helpers (npm run compat, npm run faults) would print a test summary.
if (process.env.NODE_TEST_CONTEXT)
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

/** Starts the CLI with `args`; the caller drives stdin/stdout. Killed when the test file ends, if still running. */
export function startCli(args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...options,
    env: { ...process.env, ANTHROPIC_API_KEY: '', ...options.env },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Runs the CLI to the end, writing `stdin` (then closing it). */
export function runCli(
  args: string[],
  options: SpawnOptions & { stdin?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  const child = startCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.end(options.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code, signal });
    });
  });
}

/** Parses stream-json stdout into objects (every line must be JSON). */
export function parseLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
