/**
 * The environment for commands that run without asking: git's repository config may name
 * programs (`core.fsmonitor`, `diff.external`, `core.pager`, hooks), so a "read-only" `git status`
 * could run anything a config file says. These overrides (git's GIT_CONFIG_COUNT mechanism, which
 * wins over every config file) switch those off. Writes to `.git/` itself need approval
 * (see protected-paths.ts), which covers the drivers that cannot be named here.
 */
const OVERRIDES: Array<[string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['core.sshCommand', 'false'],
  ['core.gitProxy', ''],
  ['diff.external', ''],
  ['credential.helper', ''],
  ['protocol.ext.allow', 'never'],
];

/** `env` plus git overrides that keep repository config from running programs. */
export function gitSafeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...env,
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
  };
  delete out.GIT_EXTERNAL_DIFF;
  delete out.GIT_SSH_COMMAND;
  delete out.GIT_SSH;
  delete out.GIT_ASKPASS;
  const start = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10) || 0;
  OVERRIDES.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${start + i}`] = key;
    out[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  out.GIT_CONFIG_COUNT = String(start + OVERRIDES.length);
  return out;
}
