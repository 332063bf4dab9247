/**
 * The ripgrep that Grep runs: the binary `@vscode/ripgrep` carries for this platform (a
 * per-platform optional package of the registry, nothing downloaded at install time), or `rg` on
 * PATH where that package has no binary for the platform or was left out (`--omit=optional`).
 *
 * Never one inside a working folder: commands the model runs may write there (an approved command, acceptEdits'
 * file commands), and a planted `rg` would then run for every later Grep and auto-allowed `rg`, which nobody
 * approved as a program of the model's (outside any sandbox where the sandbox is off). That happens when agentpipe
 * runs from a checkout it is working on, or PATH names a folder of the project (`node_modules/.bin`, a `.venv/bin`).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { findExecutable } from '../process/executable.ts';
import { isInside } from '../process/paths.ts';

let packaged: Promise<string | undefined> | undefined;

/** The packaged binary's real path, resolved once; undefined without one for this platform. */
function packagedRipgrep(): Promise<string | undefined> {
  // @vscode/ripgrep throws on import when its platform package is missing.
  packaged ??= import('@vscode/ripgrep').then(
    (ripgrep) => {
      try {
        return realpathSync(ripgrep.rgPath);
      } catch {
        return undefined;
      }
    },
    () => undefined,
  );
  return packaged;
}

/** True when `file` exists and is outside every one of `folders` (real paths), links resolved. */
function outsideAll(file: string | undefined, folders: readonly string[]): file is string {
  if (file === undefined) return false;
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    return false;
  }
  return !folders.some((dir) => isInside(real, dir));
}

/**
 * The ripgrep executable (absolute) for a session whose working folders are `folders` (real paths): the packaged
 * binary, else `rg` on `env`'s PATH, each only when outside every working folder; undefined when there is none.
 */
export async function ripgrepCommand(
  folders: readonly string[],
  env: Record<string, string | undefined> = process.env,
): Promise<string | undefined> {
  const own = await packagedRipgrep();
  if (outsideAll(own, folders)) return own;
  const onPath = findExecutable('rg', env);
  return outsideAll(onPath, folders) ? onPath : undefined;
}

/**
 * `env` for a Bash command: where its PATH has no `rg`, the packaged ripgrep's folder is added at the end (when it is
 * outside the working folders), so `rg` in a command runs as it does in Claude Code's shell (which gives commands its
 * own ripgrep) and shadows nothing on PATH.
 */
export async function withRipgrepOnPath(
  env: NodeJS.ProcessEnv,
  folders: readonly string[],
): Promise<NodeJS.ProcessEnv> {
  if (findExecutable('rg', env)) return env;
  const own = await packagedRipgrep();
  if (!outsideAll(own, folders)) return env;
  return { ...env, PATH: [env.PATH, path.dirname(own)].filter(Boolean).join(path.delimiter) };
}
