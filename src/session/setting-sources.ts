/**
 * Settings files by source, as Claude Code reads its own: `user` is
 * `$AGENTPIPE_HOME/settings.json` (~/.agentpipe), `project` is `<cwd>/.agentpipe/settings.json`,
 * `local` is `<cwd>/.agentpipe/settings.local.json`. Their hooks and permission rules add up,
 * with `--settings` last. A missing file is skipped; a malformed one is an error naming it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadSettings, type Settings } from '../tools/hooks/settings.ts';
import { agentpipeHome } from './paths.ts';

export type SettingSource = 'user' | 'project' | 'local';
export const SETTING_SOURCES: readonly SettingSource[] = ['user', 'project', 'local'];

/** The file of each source. */
export function settingsFile(
  source: SettingSource,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): string {
  if (source === 'user') return path.join(agentpipeHome(env), 'settings.json');
  return path.join(cwd, '.agentpipe', source === 'project' ? 'settings.json' : 'settings.local.json');
}

/** Parses `--setting-sources user,project` ('' for none); throws on an unknown name. */
export function parseSettingSources(value: string): SettingSource[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(SETTING_SOURCES as readonly string[]).includes(name))
      throw new Error(`--setting-sources: unknown source "${name}"; expected ${SETTING_SOURCES.join(', ')}`);
  }
  return names as SettingSource[];
}

/** Where a layer of settings came from, named as Claude Code names it (`list_permission_rules`, `get_settings`). */
export type SettingsLayerSource = 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings';

/** One layer of the session's settings: what it says, where from, and its file. */
export type SettingsLayer = Settings & { source: SettingsLayerSource; file?: string };

const LAYER_OF: Record<SettingSource, SettingsLayerSource> = {
  user: 'userSettings',
  project: 'projectSettings',
  local: 'localSettings',
};

/** Every settings of the session, in order: the sources' files that exist, then `settings` (the flag). */
export function sessionSettings(
  options: { settingSources?: SettingSource[]; settings?: string | Record<string, unknown> },
  cwd: string,
): SettingsLayer[] {
  const out: SettingsLayer[] = [];
  for (const source of SETTING_SOURCES.filter((s) => options.settingSources?.includes(s))) {
    const file = settingsFile(source, cwd);
    if (existsSync(file))
      out.push({ ...loadSettings(file, cwd, `${source} settings ${file}`), source: LAYER_OF[source], file });
  }
  if (options.settings !== undefined) out.push({ ...loadSettings(options.settings, cwd), source: 'flagSettings' });
  return out;
}
