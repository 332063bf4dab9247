/**
 * Where transcripts live: `$AGENTPIPE_HOME/projects/<encoded cwd>/<session_id>.jsonl`
 * (AGENTPIPE_HOME defaults to ~/.agentpipe). The cwd is encoded as Claude Code does it:
 * every character that is not a letter or a digit becomes '-'.
 */
import { readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The agentpipe config folder. */
export function agentpipeHome(env: Record<string, string | undefined> = process.env): string {
  return env.AGENTPIPE_HOME ? path.resolve(env.AGENTPIPE_HOME) : path.join(os.homedir(), '.agentpipe');
}

/** `/home/me/my.app` → `-home-me-my-app`. */
export function encodeCwd(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
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
export async function sessionFiles(cwd: string, home = agentpipeHome()): Promise<Array<{ file: string; mtimeMs: number }>> {
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
  const files = await Promise.all(names.filter((n) => n.endsWith('.jsonl')).map(async (name) => {
    const file = path.join(dir, name);
    try {
      return { file, mtimeMs: (await stat(file)).mtimeMs };
    } catch {
      return undefined;
    }
  }));
  return files.filter((f) => f !== undefined).sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** Finds the transcript of `sessionId`: this folder's first, then any other folder's. */
export async function findTranscript(sessionId: string, cwd: string, home = agentpipeHome()): Promise<string | undefined> {
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
