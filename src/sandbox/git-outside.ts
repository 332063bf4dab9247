/**
 * git run by agentpipe itself, outside the sandbox, on a repository of the working folders (deny-read.ts asks what a
 * denied file's history holds; submodules.ts lists gitlinks). The repository's config is not ours to trust: git runs
 * none of its programs and reaches no remote.
 * - `core.fsmonitor` off (a program git would start), `log.showSignature` off (the repository's `gpg.program`);
 * - no optional locks (a read leaves the index as it was);
 * - every transport refused: a partial clone fetches the objects a walk lacks from its promisor remote, and the
 *   config may make that remote a program (`ext::sh -c …` with `protocol.ext.allow=always`). GIT_ALLOW_PROTOCOL
 *   overrides the config's `protocol.*.allow`; GIT_NO_LAZY_FETCH where git knows it (2.45 on); no prompt;
 * - git itself found on PATH's absolute entries only (findExecutable) and started by that path: an empty, `.` or
 *   relative PATH entry would start the `git` a command wrote into the repository, outside the sandbox.
 */
import { findExecutable } from '../process/executable.ts';
import { runProcessGroup, type ProcessGroupResult } from '../process/run.ts';

/**
 * Runs `git <args>` in `root` as the module comment says; a failure to start is in the run's `error` (ENOENT when no
 * git is on PATH).
 */
export async function gitOutside(
  root: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  cap: number,
): Promise<ProcessGroupResult> {
  const git = findExecutable('git', env);
  if (git === undefined) {
    const error: NodeJS.ErrnoException = new Error('git is not on PATH (its absolute entries)');
    error.code = 'ENOENT';
    return { code: null, exitSignal: null, stdout: '', stderr: '', dropped: { stdout: 0, stderr: 0 }, error };
  }
  return runProcessGroup({
    command: [git, '-c', 'core.fsmonitor=false', '-c', 'log.showSignature=false', ...args],
    cwd: root,
    env: {
      ...env,
      GIT_OPTIONAL_LOCKS: '0',
      GIT_ALLOW_PROTOCOL: 'none',
      GIT_NO_LAZY_FETCH: '1',
      GIT_TERMINAL_PROMPT: '0',
    },
    cap,
    timeoutMs: 10_000,
    graceMs: 500,
  });
}
