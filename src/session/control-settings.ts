/**
 * Settings changed over the control channel: `apply_flag_settings` replaces the session's flag
 * layer (its permission rules, hooks, model and effort apply from the next request);
 * `update_settings` merges Claude Code's allowed keys into a settings file, as its /config does.
 */
import { EFFORT_LEVELS } from '../model/types.ts';
import { isOneOf } from '../process/guards.ts';
import { loadSettings } from '../tools/hooks/settings.ts';
import type { Session } from './session.ts';
import { settingsFile } from './setting-sources.ts';
import { changeSettingsFile } from './settings-file.ts';

const EFFORTS = EFFORT_LEVELS;
/**
 * Keys of the flag layer that agentpipe applies; the others are kept (and shown by `get_settings`) but have no effect.
 */
const APPLIED_KEYS = new Set(['permissions', 'hooks', 'model', 'effortLevel']);

/** Merges `settings` into the session's flag layer and applies it; throws (nothing changed) when it is invalid. */
export function applyFlagSettings(session: Session, settings: Record<string, unknown>): void {
  const previous = session.settingsLayers.find((l) => l.source === 'flagSettings')?.raw ?? {};
  const raw = { ...previous, ...settings };
  const effort = raw.effortLevel;
  if (effort !== undefined && !isOneOf(EFFORTS, effort))
    throw new Error(`apply_flag_settings: effortLevel must be one of ${EFFORTS.join(', ')}`);
  if (raw.model !== undefined && typeof raw.model !== 'string')
    throw new Error('apply_flag_settings: model must be a string');
  const layer = { ...loadSettings(raw, session.ctx.cwd, 'apply_flag_settings'), source: 'flagSettings' as const };
  for (const line of layer.warnings) session.ctx.warn(line);
  session.setFlagLayer(layer);
  if (typeof settings.model === 'string')
    session.ctx.model = settings.model === 'default' ? session.defaultModel : settings.model;
  if (settings.effortLevel !== undefined && effort !== undefined) session.ctx.effort = effort;
  const ignored = Object.keys(settings).filter((key) => !APPLIED_KEYS.has(key));
  if (ignored.length) session.ctx.warn(`apply_flag_settings: agentpipe keeps but does not apply ${ignored.join(', ')}`);
}

/**
 * What Claude Code lets a client write into each file (each key is a security decision: hooks and rules are not among
 * them).
 */
const WRITABLE: Record<'localSettings' | 'userSettings', { source: 'local' | 'user'; keys: string[] }> = {
  localSettings: { source: 'local', keys: ['outputStyle'] },
  userSettings: { source: 'user', keys: ['effortLevel'] },
};

/** Merges allowed string keys into the local or user settings file (written whole, then renamed into place). */
export async function updateSettingsFile(
  session: Session,
  target: 'localSettings' | 'userSettings',
  settings: Record<string, unknown>,
): Promise<void> {
  const { source, keys } = WRITABLE[target];
  if (!session.settingSources.includes(source))
    throw new Error(
      `update_settings: this session does not read ${target} (--setting-sources ` +
        `${session.settingSources.join(',') || '""'})`,
    );
  for (const [key, value] of Object.entries(settings)) {
    if (!keys.includes(key))
      throw new Error(
        `update_settings: ${target} takes only ${keys.join(', ')}; "${key}" is not writable from a client`,
      );
    if (typeof value !== 'string') throw new Error(`update_settings: ${key} must be a string`);
  }
  if (settings.effortLevel !== undefined && !isOneOf(EFFORTS, settings.effortLevel))
    throw new Error(`update_settings: effortLevel must be one of ${EFFORTS.join(', ')}`);
  const file = settingsFile(source, session.originalCwd);
  await changeSettingsFile(file, 'update_settings', (current) => ({ ...current, ...settings }));
}
