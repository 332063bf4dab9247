/**
 * The environment for commands that run without asking. git's configuration may name programs
 * (`core.fsmonitor`, `core.pager`, hooks, `gpg.program` through `log.showSignature`), so a
 * "read-only" `git status` could run anything a config file says. These overrides (git's
 * GIT_CONFIG_COUNT mechanism, the command scope, which wins over every config file) switch the
 * fixed keys off, refuse a bare repository git would find by walking up from the folder (an
 * embedded one, whose config the repository's author wrote) and keep git out of submodules
 * (whose config is not checked). Keys that name drivers (`diff.<x>.textconv`, `filter.<x>.clean`)
 * cannot be named here: git-repository.ts refuses a repository whose own config sets them.
 * Variables that make bash run a file or glob differently (BASH_ENV, BASHOPTS, GLOBIGNORE,
 * CDPATH …) are dropped, so the line runs as it was judged.
 */
const OVERRIDES: Array<[string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['core.sshCommand', 'false'],
  ['core.gitProxy', ''],
  ['credential.helper', ''],
  ['protocol.ext.allow', 'never'],
  ['log.showSignature', 'false'],
  ['safe.bareRepository', 'explicit'],
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
];

/** Variables that change what `bash -c` runs or how it expands words. */
const SHELL_VARIABLES = ['BASH_ENV', 'ENV', 'BASHOPTS', 'SHELLOPTS', 'GLOBIGNORE', 'CDPATH', 'POSIXLY_CORRECT'];

/** `env` plus git overrides that keep configuration from running programs, without the shell variables above. */
export function readOnlyEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...env,
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
  };
  for (const name of ['GIT_EXTERNAL_DIFF', 'GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_ASKPASS', ...SHELL_VARIABLES])
    delete out[name];
  const start = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10) || 0;
  OVERRIDES.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${start + i}`] = key;
    out[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  out.GIT_CONFIG_COUNT = String(start + OVERRIDES.length);
  return out;
}
