/**
 * Shell command hooks, as in Claude Code: the hook input JSON on stdin, `bash -c` in its own
 * process group under the session folder, inside the session's sandbox (its workspace profile);
 * exit 0 with JSON on stdout is a decision, exit 2 blocks with stderr as the reason, other codes
 * are non-blocking errors. Killed at its timeout.
 */
import { childEnv } from '../../process/env.ts';
import { defaultSandbox, type SandboxConfig } from '../../sandbox/config.ts';
import type { HookHandler, HookInput, HookRun } from './types.ts';

const MAX_CAPTURE = 64 * 1024;

/** `sandbox`: the session's sandbox when the hook runs (hooks run in its workspace profile). */
export function commandHook(
  command: string,
  timeoutMs: number,
  sandbox: () => SandboxConfig | undefined = () => undefined,
): HookHandler {
  return {
    label: command,
    timeoutMs,
    run: (input, _toolUseId, signal) => runCommand(command, input, timeoutMs, signal, sandbox()),
  };
}

async function runCommand(
  command: string,
  input: HookInput,
  timeoutMs: number,
  signal: AbortSignal,
  sandbox: SandboxConfig | undefined,
): Promise<HookRun> {
  const { runSandboxed } = await import('../../sandbox/run.ts');
  const run = await runSandboxed(sandbox ?? defaultSandbox(input.cwd), {
    profile: 'hook',
    command,
    cwd: input.cwd,
    stdin: JSON.stringify(input),
    cap: MAX_CAPTURE,
    timeoutMs,
    signal,
    graceMs: 1000,
    env: { ...childEnv(), CLAUDE_PROJECT_DIR: input.cwd, AGENTPIPE_HOOK_EVENT: input.hook_event_name },
  });
  const { stdout, stderr } = run;
  const exitCode = run.code ?? undefined;
  if (run.error) return { stdout, stderr: `${stderr}failed to run hook: ${run.error.message}`, outcome: 'error' };
  if (run.stopped === 'timeout')
    return {
      stdout,
      stderr: `${stderr}Hook timed out after ${timeoutMs / 1000}s and was killed`,
      exitCode,
      outcome: 'error',
      timedOut: true,
    };
  if (run.stopped === 'aborted') return { stdout, stderr, exitCode, outcome: 'cancelled' };
  return interpret(stdout, stderr, run.code ?? 1);
}

/** Exit code and stdout → a decision. */
export function interpret(stdout: string, stderr: string, exitCode: number): HookRun {
  if (exitCode === 2)
    return { stdout, stderr, exitCode, outcome: 'error', blocked: stderr.trim() || 'blocked by hook (exit code 2)' };
  if (exitCode !== 0) return { stdout, stderr, exitCode, outcome: 'error' };
  const text = stdout.trim();
  let output: unknown;
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) output = parsed;
    } catch {
      // Plain text output: no decision.
    }
  }
  return { output, stdout, stderr, exitCode, outcome: 'success' };
}
