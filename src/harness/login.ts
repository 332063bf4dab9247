/**
 * Before a wrapped CLI starts: can it log in? A CLI with neither its key variable nor a login of
 * its own (a file its login command writes, a cloud's variables, its settings choosing an auth)
 * would fail in its own words ("Please run /login", "Execution error"), naming commands agentpipe
 * does not have: agentpipe says it first, in one line with the fix. Where it cannot tell (Claude's
 * login in the macOS keychain), it lets the CLI try.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HarnessName } from './types.ts';

type Wrapped = Exclude<HarnessName, 'agentpipe' | 'acp'>;

/** What counts as a login of each CLI besides its key variables, and how to get one. */
const LOGINS: Record<
  Wrapped,
  { variables: string[]; files: (home: string, env: Record<string, string | undefined>) => string[]; fix: string }
> = {
  claude: {
    variables: ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'],
    files: (home, env) => [path.join(env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), '.credentials.json')],
    fix: 'set ANTHROPIC_API_KEY or give --api-key, or log in once by running claude',
  },
  codex: {
    variables: [],
    files: (home, env) => [path.join(env.CODEX_HOME ?? path.join(home, '.codex'), 'auth.json')],
    fix: 'set CODEX_API_KEY (or OPENAI_API_KEY) or give --api-key, or log in once with codex login',
  },
  gemini: {
    variables: ['GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA', 'GOOGLE_APPLICATION_CREDENTIALS', 'CLOUD_SHELL'],
    files: (home, env) => {
      const own = path.join(env.GEMINI_CLI_HOME ?? home, '.gemini');
      return [path.join(own, 'oauth_creds.json'), path.join(own, '.env')];
    },
    fix: 'set GEMINI_API_KEY or give --api-key, or log in once by running gemini',
  },
  qwen: {
    variables: [],
    files: (home) => [path.join(home, '.qwen', 'oauth_creds.json'), path.join(home, '.qwen', '.env')],
    fix:
      'set OPENAI_API_KEY (any value for a local server that takes none) or give --api-key, ' +
      'or log in once by running qwen',
  },
};

/** The settings file of a CLI that keeps its auth choice there (Gemini, Qwen), when it names one. */
function settingsChooseAuth(file: string): boolean {
  try {
    return /"selectedType"\s*:\s*"[^"]+"/.test(readFileSync(file, 'utf8'));
  } catch {
    return false; // no settings file: nothing chosen
  }
}

/**
 * One line saying how to give `name` a login when it has none, else undefined. `env` is the CLI's
 * environment (its key variables already set from `--api-key`), `cwd` the session's folder (Gemini
 * and Qwen also read keys from a `.env` file there).
 */
export function missingLogin(
  name: Exclude<HarnessName, 'agentpipe'>,
  keys: string[],
  env: Record<string, string | undefined>,
  cwd: string,
): string | undefined {
  if (name === 'acp') return undefined;
  const login = LOGINS[name];
  if ([...keys, ...login.variables].some((key) => env[key])) return undefined;
  if (name === 'claude' && process.platform === 'darwin') return undefined;
  const home = env.HOME ?? '/';
  if (login.files(home, env).some((file) => existsSync(file))) return undefined;
  if (name === 'gemini' || name === 'qwen') {
    const own = name === 'gemini' ? path.join(env.GEMINI_CLI_HOME ?? home, '.gemini') : path.join(home, '.qwen');
    if (settingsChooseAuth(path.join(own, 'settings.json')) || existsSync(path.join(cwd, '.env'))) return undefined;
  }
  return `--harness ${name} has no key: ${login.fix}`;
}
