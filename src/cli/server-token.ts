/**
 * The token of agentpipe's servers (`serve`, `view`, `view --live`, `view --redis`), from where a
 * process listing cannot show it: `--token-file <file>` or AGENTPIPE_SERVE_TOKEN (deleted from the
 * environment at once, so nothing this process starts inherits it). `--token <token>` still works
 * but is visible in `ps` to every user of the machine: it says so once. With none, a fresh token
 * is generated and shown once, in the printed URL. `--no-token` is for loopback only.
 */
import { errorMessage } from '../process/errors.ts';
import { readFileSync, statSync } from 'node:fs';
import { generateToken, isLoopback } from '../transport/access.ts';
import { UsageError } from './options.ts';

/** The token flags of a server command. */
export interface TokenFlags {
  /** A string from `--token`, false from `--no-token`, true or undefined when neither was given. */
  token?: string | boolean;
  tokenFile?: string;
  host: string;
}

/**
 * The server's token (none with `--no-token`, or when `optional` and nothing asks for one on a loopback host) and
 * whether it was made here.
 */
export function serverToken(
  flags: TokenFlags,
  log: (line: string) => void,
  optional = false,
): { token?: string; generated: boolean } {
  const fromEnv = process.env.AGENTPIPE_SERVE_TOKEN;
  // Tools, hooks and MCP servers started by this process must not be able to read it.
  delete process.env.AGENTPIPE_SERVE_TOKEN;
  if (typeof flags.token === 'string' && flags.tokenFile !== undefined)
    throw new UsageError('give the token once: --token or --token-file, not both');
  if (flags.token === false) {
    if (flags.tokenFile !== undefined) throw new UsageError('--no-token and --token-file contradict each other');
    if (!isLoopback(flags.host)) {
      throw new UsageError(
        `refusing to serve on ${flags.host} without a token: anyone who can reach it could use it. ` +
          `Drop --no-token, or bind to 127.0.0.1`,
      );
    }
    return { generated: false };
  }
  if (flags.tokenFile !== undefined) return { token: readTokenFile(flags.tokenFile, log), generated: false };
  if (typeof flags.token === 'string' && flags.token) {
    log(
      'agentpipe: note: a --token on the command line is visible to every user of this machine (ps); ' +
        'prefer --token-file or AGENTPIPE_SERVE_TOKEN',
    );
    return { token: flags.token, generated: false };
  }
  if (fromEnv) return { token: fromEnv, generated: false };
  if (optional && isLoopback(flags.host)) return { generated: false };
  return { token: generateToken(), generated: true };
}

/** The token in `file` (its first line); an empty or unreadable file is a usage error, a shared one a warning. */
function readTokenFile(file: string, log: (line: string) => void): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--token-file ${file}: ${errorMessage(error)}`);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (!token) throw new UsageError(`--token-file ${file}: the file holds no token`);
  if ((statSync(file).mode & 0o077) !== 0)
    log(`agentpipe: warning: --token-file ${file} can be read by other users; make it private (chmod 600)`);
  return token;
}
