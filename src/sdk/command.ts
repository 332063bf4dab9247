/**
 * Runs one shell command for `Agent.executeCommand`: in its own process group under the
 * sandbox folder, output streamed as it comes, a timeout or a stop kills the whole group.
 */
import { spawn } from 'node:child_process';

export interface CommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Stopped by `interrupt()`, `pause()` or `kill()`. */
  interrupted: boolean;
  timedOut: boolean;
}

export interface RunningCommand {
  readonly done: Promise<CommandResult>;
  /** Stops the command (SIGTERM to its group, SIGKILL after a grace period). */
  stop(): void;
}

const KILL_GRACE_MS = 2000;

export function startCommand(
  command: string, cwd: string, options: { timeoutMs?: number; onStdout(chunk: string): void; onStderr(chunk: string): void; env?: NodeJS.ProcessEnv },
): RunningCommand {
  const child = spawn('/bin/sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  let stdout = '';
  let stderr = '';
  let interrupted = false;
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const terminate = () => {
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    options.onStdout(chunk);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    options.onStderr(chunk);
  });
  const timer = options.timeoutMs ? setTimeout(() => ((timedOut = true), terminate()), options.timeoutMs) : undefined;
  const done = new Promise<CommandResult>((resolve) => {
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
      options.onStderr(`${error.message}\n`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, stdout, stderr, interrupted, timedOut });
    });
  });
  return {
    done,
    stop() {
      interrupted = true;
      terminate();
    },
  };
}
