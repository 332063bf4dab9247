/**
 * Settings files by source, as Claude Code reads its own: `user` is
 * `$AGENTPIPE_HOME/settings.json` (~/.agentpipe), `project` is `<cwd>/.agentpipe/settings.json`,
 * `local` is `<cwd>/.agentpipe/settings.local.json`. Their hooks, permission rules and MCP servers
 * add up, with `--settings` last. A missing file is skipped; a malformed one is an error naming it.
 * The project's files (project, local) apply only in a trusted folder (trust.ts) unless the caller
 * named them: `appliedSources` is the gate.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadSettings, type Settings } from '../tools/hooks/settings.ts';
import { settingsKeyWarnings } from '../tools/hooks/settings-check.ts';
import { agentFiles } from './agent-files.ts';
import { userSettingsFile } from './paths.ts';
import { isTrustedFolder } from './trust.ts';
import { isOneOf } from '../process/guards.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';

export type SettingSource = 'user' | 'project' | 'local';
export const SETTING_SOURCES: readonly SettingSource[] = ['user', 'project', 'local'];

/** The file of each source. */
export function settingsFile(
  source: SettingSource,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): string {
  if (source === 'user') return userSettingsFile(env);
  return path.join(cwd, '.agentpipe', source === 'project' ? 'settings.json' : 'settings.local.json');
}

/** Parses `--setting-sources user,project` ('' for none); throws on an unknown name. */
export function parseSettingSources(value: string): SettingSource[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.map((name) => {
    if (!isOneOf(SETTING_SOURCES, name))
      throw new Error(`--setting-sources: unknown source "${name}"; expected ${SETTING_SOURCES.join(', ')}`);
    return name;
  });
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

/** What decides which sources' files apply. */
export interface SettingsOptions {
  settingSources?: SettingSource[];
  settings?: string | Record<string, unknown>;
  /**
   * false: the project's files (project, local) apply only in a folder the user trusts (`agentpipe trust`); true or
   * absent: they apply (the caller named them, or `--trust-project`).
   */
  trustProject?: boolean;
}

/** The project's own sources: files in the working folder, which a cloned repository brings with it. */
const IN_PROJECT: readonly SettingSource[] = ['project', 'local'];

/**
 * The sources whose files apply: `user` always, `project` and `local` only when the project is trusted. Each file of an
 * untrusted project that would have applied is named on `warn`, one line each, with what it holds.
 */
export function appliedSources(
  options: SettingsOptions,
  cwd: string,
  warn: (line: string) => void,
  env: Record<string, string | undefined> = process.env,
): SettingSource[] {
  const asked = SETTING_SOURCES.filter((s) => options.settingSources?.includes(s));
  // In the home folder, the project file is the user's own file (already the user layer).
  const mine = (s: SettingSource) => s === 'project' && settingsFile(s, cwd, env) === settingsFile('user', cwd, env);
  const wanted = asked.filter((s) => !mine(s));
  if (!wanted.some((s) => IN_PROJECT.includes(s)) || options.trustProject !== false || isTrustedFolder(cwd, env))
    return wanted;
  for (const source of wanted.filter((s) => IN_PROJECT.includes(s))) {
    for (const [file, holds] of projectFiles(source, cwd, env))
      warn(
        `ignored ${file} (${holds}): ${cwd} is not a trusted folder. Trust it with \`agentpipe trust ${cwd}\`, ` +
          'or for one run with --trust-project (the library: trustProject)',
      );
  }
  return wanted.filter((s) => !IN_PROJECT.includes(s));
}

/** The files of a folder's own sources (project, local) that exist, with what each holds. */
export function projectSettingsSummary(cwd: string, env: Record<string, string | undefined> = process.env): string[][] {
  return IN_PROJECT.flatMap((source) => projectFiles(source, cwd, env));
}

/** The files of a project source that exist, with what each holds (its top-level keys, or its agent files). */
function projectFiles(source: SettingSource, cwd: string, env: Record<string, string | undefined>): string[][] {
  const out: string[][] = [];
  const file = settingsFile(source, cwd, env);
  const holds = untrustedHolds(file);
  if (holds !== undefined) out.push([file, holds]);
  const agents = source === 'project' ? agentFiles(['project'], cwd, () => undefined, env) : [];
  if (agents.length) out.push([path.dirname(agents[0]!), `${agents.length} agent file${agents.length > 1 ? 's' : ''}`]);
  return out;
}

/** The largest untrusted settings file whose keys are shown. */
const SUMMARY_BYTES = 1024 * 1024;

/**
 * What an untrusted settings file holds (its top-level keys), read only when it is a small regular file: a link (to
 * /dev/zero, a FIFO, another file) or a huge file is named as such, never read. Undefined when there is none.
 */
function untrustedHolds(file: string): string | undefined {
  let stats;
  try {
    stats = lstatSync(file);
  } catch {
    return undefined;
  }
  if (stats.isSymbolicLink()) return 'a symbolic link, not read';
  if (!stats.isFile()) return 'not a regular file, not read';
  if (stats.size > SUMMARY_BYTES) return `${stats.size} bytes, not read`;
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return Object.keys(value).slice(0, 8).join(', ') || 'nothing';
    return 'settings that are not a JSON object';
  } catch {
    return 'settings that are not valid JSON';
  }
}

/**
 * Every settings layer of the session, in order: the applied sources' files that exist, then `settings` (the flag).
 * This is the one door every file's settings come through (hooks, rules, MCP servers, and any block added later).
 */
export function sessionSettings(
  options: SettingsOptions,
  cwd: string,
  warn: (line: string) => void = () => undefined,
): { layers: SettingsLayer[]; sources: SettingSource[] } {
  const sources = appliedSources(options, cwd, warn);
  const layers: SettingsLayer[] = [];
  for (const source of sources) {
    const file = settingsFile(source, cwd);
    if (!existsSync(file)) continue;
    const label = `${source} settings ${file}`;
    layers.push({ ...said(loadSettings(file, cwd, label), label, warn), source: LAYER_OF[source], file });
  }
  if (options.settings !== undefined)
    layers.push({ ...said(loadSettings(options.settings, cwd), '--settings', warn), source: 'flagSettings' });
  return { layers, sources };
}

/** Says on `warn` what of a layer is left out: its malformed rules, its keys agentpipe does not apply. */
function said(settings: Settings, label: string, warn: (line: string) => void): Settings {
  for (const line of [...settingsKeyWarnings(settings.raw, label), ...settings.warnings]) warn(line);
  return settings;
}

/** The settings' `alwaysThinkingEnabled` (the last layer that says it wins), as Claude Code reads it. */
export function alwaysThinkingEnabled(layers: SettingsLayer[]): boolean | undefined {
  return layers.map((layer) => layer.raw.alwaysThinkingEnabled).findLast((v): v is boolean => typeof v === 'boolean');
}

/**
 * The MCP servers of the settings layers (a later layer wins by name; `mcpServers` and `--mcp-config` win over them),
 * each checked by the one MCP config schema; undefined when no layer has any.
 */
export async function settingsMcpServers(
  layers: SettingsLayer[],
): Promise<Record<string, McpServerConfig> | undefined> {
  const withServers = layers.filter((layer) => layer.mcpServers !== undefined);
  if (withServers.length === 0) return undefined;
  const { parseMcpServers } = await import('../tools/mcp/config-schema.ts');
  const servers: Record<string, McpServerConfig> = {};
  for (const layer of withServers)
    Object.assign(servers, parseMcpServers(layer.mcpServers, `${layer.file ?? '--settings'}: mcpServers`));
  return servers;
}
