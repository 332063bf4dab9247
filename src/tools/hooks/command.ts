/**
 * Shell command hooks, as in Claude Code: the hook input JSON on stdin, `bash -c` in its own
 * process group under the session folder; exit 0 with JSON on stdout is a decision, exit 2
 * blocks with stderr as the reason, other codes are non-blocking errors. Killed at its timeout.
 */
import { spawn } from 'node:child_process';
import type { HookHandler, HookInput, HookOutput, HookRun } from './types.ts';

const MAX_CAPTURE = 64 * 1024;

export function commandHook(command: string, timeoutMs: number): HookHandler {
  return {
    label: command,
    timeoutMs,
    run: (input, _toolUseId, signal) => runCommand(command, input, timeoutMs, signal),
  };
}

function runCommand(command: string, input: HookInput, timeoutMs: number, signal: AbortSignal): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd: input.cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, CLAUDE_PROJECT_DIR: input.cwd, AGENTPIPE_HOOK_EVENT: input.hook_event_name },
    });
    let stdout = '';
    let stderr = '';
    let ended: 'timeout' | 'cancelled' | undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(0, MAX_CAPTURE)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(0, MAX_CAPTURE)));
    child.stdin.on('error', () => {}); // the hook may exit without reading its input
    child.stdin.end(JSON.stringify(input));
    const kill = (why: 'timeout' | 'cancelled') => {
      ended ??= why;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 1000).unref();
    };
    const timer = setTimeout(() => kill('timeout'), timeoutMs);
    const onAbort = () => kill('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const finish = (code: number | null, error?: Error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      killGroup(child.pid, 'SIGKILL');
      if (error) return resolve({ stdout, stderr: `${stderr}failed to run hook: ${error.message}`, outcome: 'error' });
      if (ended === 'timeout') {
        return resolve({ stdout, stderr: `${stderr}Hook timed out after ${timeoutMs / 1000}s and was killed`, exitCode: code ?? undefined, outcome: 'error' });
      }
      if (ended === 'cancelled') return resolve({ stdout, stderr, exitCode: code ?? undefined, outcome: 'cancelled' });
      resolve(interpret(stdout, stderr, code ?? 1));
    };
    child.once('error', (error) => finish(null, error));
    child.once('close', (code) => finish(code));
  });
}

/** Exit code and stdout → a decision. */
export function interpret(stdout: string, stderr: string, exitCode: number): HookRun {
  if (exitCode === 2) return { stdout, stderr, exitCode, outcome: 'error', blocked: stderr.trim() || 'blocked by hook (exit code 2)' };
  if (exitCode !== 0) return { stdout, stderr, exitCode, outcome: 'error' };
  const text = stdout.trim();
  let output: HookOutput | undefined;
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) output = parsed as HookOutput;
    } catch {
      // Plain text output: no decision.
    }
  }
  return { output, stdout, stderr, exitCode, outcome: 'success' };
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
