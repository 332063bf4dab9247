/**
 * Recognises Bash commands that only read: every segment starts with a known read-only
 * program, and nothing redirects, substitutes or runs something else.
 */
const READ_ONLY = new Set([
  'ls', 'pwd', 'cat', 'head', 'tail', 'wc', 'echo', 'printf', 'grep', 'egrep', 'fgrep', 'rg', 'file', 'stat',
  'du', 'df', 'date', 'whoami', 'uname', 'which', 'tree', 'sort', 'uniq', 'cut', 'diff', 'true', 'false',
  'basename', 'dirname', 'realpath', 'readlink', 'nl', 'tr', 'column', 'id', 'hostname', 'find',
]);
const GIT_READ_ONLY = new Set(['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'remote', 'describe', 'tag']);
const FIND_WRITES = /\s-(exec|execdir|ok|okdir|delete|fprint\w*|fls)\b/;

/** True when `command` can run without asking in `default` mode. */
export function isReadOnlyCommand(command: string): boolean {
  if (/[`<>]|\$\(|\n/.test(command)) return false;
  return command.split(/&&|\|\||;|\|/).every((segment) => {
    const words = segment.trim().split(/\s+/);
    const program = words[0] ?? '';
    if (program === '') return false;
    if (program === 'git') return GIT_READ_ONLY.has(words[1] ?? '');
    if (program === 'find') return !FIND_WRITES.test(segment);
    return READ_ONLY.has(program);
  });
}
