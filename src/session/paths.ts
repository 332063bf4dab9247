/**
 * Where transcripts live: `$AGENTPIPE_HOME/projects/<encoded cwd>/<session_id>.jsonl`
 * (AGENTPIPE_HOME defaults to ~/.agentpipe). The cwd is encoded as Claude Code does it:
 * every character that is not a letter or a digit becomes '-'.
 */
import { realpathSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { agentpipeHome } from '../process/env.ts';

export { agentpipeHome };

/** The user's settings file (`$AGENTPIPE_HOME/settings.json`): the user setting source, and where trust is recorded. */
export function userSettingsFile(env: Record<string, string | undefined> = process.env): string {
  return path.join(agentpipeHome(env), 'settings.json');
}

/** Longer encodings are cut here and end with a hash of the whole path, as in Claude Code. */
const MAX_ENCODED = 200;

/** `/home/me/my.app` → `-home-me-my-app` (a path over 200 characters: its first 200, '-', a hash). */
export function encodeCwd(cwd: string): string {
  const encoded = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (encoded.length <= MAX_ENCODED) return encoded;
  let hash = 0;
  for (let i = 0; i < cwd.length; i++) hash = ((hash << 5) - hash + cwd.charCodeAt(i)) | 0;
  return `${encoded.slice(0, MAX_ENCODED)}-${Math.abs(hash).toString(36)}`;
}

/**
 * Where the official SDK's session store expects a session's transcript (`--session-mirror`):
 * `$CLAUDE_CONFIG_DIR/projects/<encoded real cwd>/<id>.jsonl`, CLAUDE_CONFIG_DIR defaulting to ~/.claude.
 */
export function mirrorPath(
  cwd: string,
  sessionId: string,
  env: Record<string, string | undefined> = process.env,
): string {
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // a folder that does not exist keeps its name
  }
  const root = env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(os.homedir(), '.claude');
  return path.join(root, 'projects', encodeCwd(real), `${sessionId}.jsonl`);
}

/** The folder holding the transcripts of one working folder. */
export function projectDir(cwd: string, home = agentpipeHome()): string {
  return path.join(home, 'projects', encodeCwd(cwd));
}

/** The transcript file of a session. */
export function transcriptPath(cwd: string, sessionId: string, home = agentpipeHome()): string {
  return path.join(projectDir(cwd, home), `${sessionId}.jsonl`);
}

/** Transcript files of a folder, newest first (by modification time). */
export async function sessionFiles(
  cwd: string,
  home = agentpipeHome(),
): Promise<Array<{ file: string; mtimeMs: number }>> {
  return jsonlFiles(projectDir(cwd, home));
}

/** The `.jsonl` files of one folder, newest first. */
export async function jsonlFiles(dir: string): Promise<Array<{ file: string; mtimeMs: number }>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const files = await Promise.all(
    names
      .filter((n) => n.endsWith('.jsonl'))
      .map(async (name) => {
        const file = path.join(dir, name);
        try {
          return { file, mtimeMs: (await stat(file)).mtimeMs };
        } catch {
          return undefined;
        }
      }),
  );
  return files.filter((f) => f !== undefined).sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** Finds the transcript of `sessionId`: this folder's first, then any other folder's. */
export async function findTranscript(
  sessionId: string,
  cwd: string,
  home = agentpipeHome(),
): Promise<string | undefined> {
  const here = transcriptPath(cwd, sessionId, home);
  if (await exists(here)) return here;
  let dirs: string[];
  try {
    dirs = await readdir(path.join(home, 'projects'));
  } catch {
    return undefined;
  }
  for (const dir of dirs) {
    const file = path.join(home, 'projects', dir, `${sessionId}.jsonl`);
    if (await exists(file)) return file;
  }
  return undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
