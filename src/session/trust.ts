/**
 * Trusted folders: a folder's own settings (`.agentpipe/settings.json`, `settings.local.json`,
 * `agents/*.md`) hold hooks that run commands, permission rules that allow them, MCP servers that
 * start programs and agents; a cloned repository must not get any of that by being opened
 * (issue 27). They apply only in a folder the user trusts: `agentpipe trust [DIR]` records its
 * real path in the user's settings (`$AGENTPIPE_HOME/settings.json`, `trustedFolders`), and a
 * folder inside a trusted one is trusted too. Nothing in a project can trust itself: only the
 * user's file is read for this, whatever `--setting-sources` says.
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { userSettingsFile } from './paths.ts';
import { changeSettingsFile, readSettingsObject } from './settings-file.ts';
import { isRecord } from '../process/guards.ts';

/** The key of the user's settings that lists the trusted folders. */
export const TRUSTED_FOLDERS_KEY = 'trustedFolders';

type Env = Record<string, string | undefined>;

const userFile = (env: Env) => userSettingsFile(env);

/** `dir` with links resolved (as given when it does not exist). */
function real(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

const listOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && path.isAbsolute(v)) : [];

/** The trusted folders; none when the user's settings cannot be read (fails closed). */
export function trustedFolders(env: Env = process.env): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(userFile(env), 'utf8'));
    return isRecord(parsed) ? listOf(parsed[TRUSTED_FOLDERS_KEY]) : [];
  } catch {
    return [];
  }
}

/** True when `dir` (its real path) is a trusted folder or inside one. */
export function isTrustedFolder(dir: string, env: Env = process.env): boolean {
  const target = real(dir);
  return trustedFolders(env).some((folder) => {
    const relative = path.relative(real(folder), target);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
}

/** Records `dir` (its real path) as trusted; false when it already was. */
export async function trustFolder(dir: string, env: Env = process.env): Promise<{ folder: string; added: boolean }> {
  const folder = real(dir);
  let added = false;
  await changeSettingsFile(userFile(env), 'cannot record the trust', (current) => {
    const list = listOf(current[TRUSTED_FOLDERS_KEY]);
    added = !list.includes(folder);
    return added ? { ...current, [TRUSTED_FOLDERS_KEY]: [...list, folder] } : current;
  });
  return { folder, added };
}

/** Forgets `dir` (as given, or its real path); false when it was not recorded. */
export async function untrustFolder(
  dir: string,
  env: Env = process.env,
): Promise<{ folder: string; removed: boolean }> {
  const names = new Set([path.resolve(dir), real(dir)]);
  const current = await readSettingsObject(userFile(env), 'cannot change the trust');
  const list = listOf(current[TRUSTED_FOLDERS_KEY]);
  const kept = list.filter((folder) => !names.has(folder));
  if (kept.length === list.length) return { folder: real(dir), removed: false };
  await changeSettingsFile(userFile(env), 'cannot change the trust', (now) => ({
    ...now,
    [TRUSTED_FOLDERS_KEY]: listOf(now[TRUSTED_FOLDERS_KEY]).filter((folder) => !names.has(folder)),
  }));
  return { folder: real(dir), removed: true };
}
