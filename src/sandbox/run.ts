/**
 * process/run.ts under the sandbox: the same options and results, the command confined by
 * `sandboxed()` first. Callers import this module lazily (`await import(...)`) so a run that
 * starts no command never loads the sandbox, its schema or bubblewrap's probe.
 */
import {
  startProcessGroup,
  type ProcessGroupOptions,
  type ProcessGroupResult,
  type RunningGroup,
} from '../process/run.ts';
import type { SandboxConfig, SandboxProfile } from './config.ts';
import { sandboxed, type SandboxRequest } from './sandbox.ts';
import type { Denial } from './egress-proxy.ts';

/** A sandboxed run's end: the process's, and the connections the egress proxy refused meanwhile. */
export type SandboxedResult = ProcessGroupResult & { refused?: Denial[] };

/** A started sandboxed run. */
export type SandboxedGroup = Omit<RunningGroup, 'done'> & { readonly done: Promise<SandboxedResult> };

/** Sandbox fields beside the process options. */
export type SandboxedOptions = ProcessGroupOptions & {
  profile: SandboxProfile;
} & Pick<SandboxRequest, 'writable' | 'readable' | 'network'>;

/** Starts `o.command` confined; a sandbox that is required and cannot start ends the run with `error` set. */
export async function startSandboxed(config: SandboxConfig, o: SandboxedOptions): Promise<SandboxedGroup> {
  let wrapped;
  try {
    wrapped = await sandboxed(config, {
      profile: o.profile,
      command: o.command,
      cwd: o.cwd,
      env: o.env,
      writable: o.writable,
      readable: o.readable,
      network: o.network,
      files: true,
    });
  } catch (error) {
    return failed(error instanceof Error ? error : new Error(String(error)));
  }
  const group = startProcessGroup({ ...o, command: wrapped.argv, env: wrapped.env, files: wrapped.files });
  const done = group.done.then((result): SandboxedResult => {
    wrapped.release();
    const refused = wrapped.refused();
    return refused.length ? { ...result, refused } : result;
  });
  return { ...group, done };
}

/** Runs `o.command` confined to its end. */
export async function runSandboxed(config: SandboxConfig, o: SandboxedOptions): Promise<SandboxedResult> {
  return (await startSandboxed(config, o)).done;
}

/** A run that never started. */
function failed(error: Error): RunningGroup {
  const result: ProcessGroupResult = {
    code: null,
    exitSignal: null,
    stdout: '',
    stderr: '',
    dropped: { stdout: 0, stderr: 0 },
    error,
  };
  return { pid: undefined, done: Promise.resolve(result), stop: () => {} };
}
