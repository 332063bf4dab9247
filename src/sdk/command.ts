/**
 * Runs one shell command for `Agent.executeCommand`: in its own process group under the
 * sandbox folder (bash, as every command agentpipe runs), inside the OS sandbox's workspace
 * profile, with agentpipe's keys taken out of its environment (as for every child); output
 * streamed as it comes and capped in the result, a timeout or a stop kills the whole group.
 */
import { childEnv } from '../process/env.ts';
import { defaultSandbox, type SandboxConfig } from '../sandbox/config.ts';

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
/** Characters kept per stream in the result (the callbacks see everything). */
const CAP = 1024 * 1024;

export function startCommand(
  command: string,
  cwd: string,
  options: {
    timeoutMs?: number;
    onStdout(chunk: string): void;
    onStderr(chunk: string): void;
    env?: NodeJS.ProcessEnv;
    /** The sandbox it runs in (its workspace profile); default: one on `cwd` in the default mode. */
    sandbox?: SandboxConfig;
  },
): RunningCommand {
  let stopped = false;
  const starting = import('../sandbox/run.ts').then(({ startSandboxed }) =>
    startSandboxed(options.sandbox ?? defaultSandbox(cwd), {
      profile: 'workspace',
      command,
      cwd,
      env: childEnv(options.env),
      cap: CAP,
      timeoutMs: options.timeoutMs || undefined,
      graceMs: KILL_GRACE_MS,
      onOutput: (stream, chunk) => (stream === 'stdout' ? options.onStdout(chunk) : options.onStderr(chunk)),
    }),
  );
  const running = starting.then((group) => {
    if (stopped) group.stop('aborted');
    return group;
  });
  const done = running.then(async (group): Promise<CommandResult> => {
    const r = await group.done;
    if (r.error) options.onStderr(`${r.error.message}\n`);
    const note = (dropped: number) => (dropped ? `\n[output truncated: ${dropped} more characters not kept]` : '');
    return {
      exitCode: r.code,
      stdout: r.stdout + note(r.dropped.stdout),
      stderr: r.stderr + note(r.dropped.stderr) + (r.error ? `${r.error.message}\n` : ''),
      interrupted: r.stopped === 'aborted',
      timedOut: r.stopped === 'timeout',
    };
  });
  return {
    done,
    stop: () => {
      stopped = true;
      void running.then((group) => group.stop('aborted'));
    },
  };
}
