/**
 * A wrapped CLI in the sandbox: the harness profile (the working folders writable, the host's
 * network for its provider) plus the CLI's own home, readable and writable although it is among
 * the credential stores every other command is kept from (it holds that CLI's own login). The
 * rest of the user's credential stores, agentpipe's home and other processes stay out of sight.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SandboxConfig } from '../sandbox/config.ts';
import type { HarnessConfig } from './types.ts';

/** The folders (made when missing) and files each CLI keeps its state in. */
export function cliHomes(name: HarnessConfig['name'], env: Record<string, string | undefined>): string[] {
  const home = env.HOME ?? '/';
  switch (name) {
    case 'claude':
      return [env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), path.join(home, '.claude.json')];
    case 'qwen':
      return [path.join(home, '.qwen')];
    case 'codex':
      return [env.CODEX_HOME ?? path.join(home, '.codex')];
    case 'gemini':
      return [path.join(env.GEMINI_CLI_HOME ?? home, '.gemini')];
    case 'acp':
      return [];
  }
}

/** The argv and environment to start the CLI with, and what to tidy when it ended. */
export async function confineCli(
  config: Pick<HarnessConfig, 'name' | 'cwd'> & { sandbox?: SandboxConfig },
  argv: string[],
  env: Record<string, string>,
): Promise<{ argv: string[]; env: Record<string, string>; release(): void }> {
  if (!config.sandbox) return { argv, env, release: () => {} };
  const { sandboxed } = await import('../sandbox/sandbox.ts');
  const homes = cliHomes(config.name, env);
  for (const dir of homes) if (!path.extname(dir) && !existsSync(dir)) mkdirSync(dir, { recursive: true });
  return sandboxed(config.sandbox, {
    profile: 'harness',
    command: argv,
    cwd: config.cwd,
    env,
    writable: homes,
    network: 'host',
  });
}
