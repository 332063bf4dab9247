/**
 * The ripgrep that Grep runs: the binary `@vscode/ripgrep` carries for this platform (a
 * per-platform optional package of the registry, nothing downloaded at install time), or `rg` on
 * PATH where that package has no binary for the platform or was left out (`--omit=optional`).
 */
import path from 'node:path';
import { findExecutable } from '../process/executable.ts';

let found: Promise<string> | undefined;

/** The ripgrep executable: the packaged binary's path, or `rg` (looked up on PATH). */
export function ripgrepCommand(): Promise<string> {
  // @vscode/ripgrep throws on import when its platform package is missing.
  found ??= import('@vscode/ripgrep').then(
    (ripgrep) => ripgrep.rgPath,
    () => 'rg',
  );
  return found;
}

/**
 * `env` for a Bash command: where its PATH has no `rg`, the packaged ripgrep's folder is added at the end, so `rg` in
 * a command runs as it does in Claude Code's shell (which gives commands its own ripgrep) and shadows nothing on PATH.
 */
export async function withRipgrepOnPath(env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  if (findExecutable('rg', env)) return env;
  const rg = await ripgrepCommand();
  if (!path.isAbsolute(rg)) return env;
  return { ...env, PATH: [env.PATH, path.dirname(rg)].filter(Boolean).join(path.delimiter) };
}
