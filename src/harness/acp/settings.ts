/** The agent's session settings: its permission modes and models, set to the session's where it offers them. */
import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import type { PermissionMode } from '../../messages/types.ts';
import type { HarnessConfig } from '../types.ts';
import type { AgentLink } from './link.ts';
import { isRecord, str } from './shared.ts';
import { PERMISSION_MODES } from '../../messages/permission-modes.ts';

/** How long the agent has to answer session/new, session/load and the session settings. */
export const SESSION_TIMEOUT_MS = 60_000;

/** What session/new, session/load and session/resume answer that the harness uses. */
export type SessionSettings = { modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null };

/** The agent's permission mode and model, as far as it says. */
export interface AgentSettings {
  mode?: PermissionMode;
  model?: string;
}

/** The values a select config option offers (flat or grouped). */
function optionValues(option: SessionConfigOption): string[] {
  if (option.type !== 'select') return [];
  return option.options.flatMap((o) => ('options' in o ? o.options.map((v) => v.value) : [o.value]));
}

/** Sets the session's permission mode and model where the agent offers them; `current` follows what the agent has. */
export async function applySettings(
  link: AgentLink,
  session: SessionSettings,
  config: Pick<HarnessConfig, 'permissionMode' | 'model'>,
  current: AgentSettings,
  o: { sessionId: string; signal: AbortSignal; warnOnce: (line: string) => void },
): Promise<void> {
  const { sessionId, signal, warnOnce } = o;
  const wanted = config.permissionMode;
  const modes = session.modes;
  current.mode = PERMISSION_MODES.find((m) => m === modes?.currentModeId);
  if (modes?.availableModes.some((m) => m.id === wanted)) {
    if (modes.currentModeId !== wanted) {
      await link.call('session/set_mode', link.agent.request('session/set_mode', { sessionId, modeId: wanted }), {
        timeoutMs: SESSION_TIMEOUT_MS,
        signal,
      });
      modes.currentModeId = wanted;
    }
    current.mode = wanted;
  } else if (wanted !== 'default') {
    warnOnce(
      `harness acp: the agent has no "${wanted}" mode: the permission mode is applied to its permission ` +
        `requests only`,
    );
  }
  const option = session.configOptions?.find((o) => o.category === 'model' && o.type === 'select');
  const models: unknown = 'models' in session ? session.models : undefined;
  const model = config.model;
  current.model =
    option && option.type === 'select'
      ? option.currentValue
      : isRecord(models)
        ? str(models.currentModelId)
        : undefined;
  if (model === undefined || model === current.model) return;
  if (option && optionValues(option).includes(model)) {
    const request = link.agent.request('session/set_config_option', { sessionId, configId: option.id, value: model });
    await link.call('session/set_config_option', request, { timeoutMs: SESSION_TIMEOUT_MS, signal });
    current.model = model;
  } else if (
    isRecord(models) &&
    Array.isArray(models.availableModels) &&
    models.availableModels.some((m) => isRecord(m) && m.modelId === model)
  ) {
    // The unstable session/set_model, for agents that offer models that way.
    await link.call('session/set_model', link.agent.request('session/set_model', { sessionId, modelId: model }), {
      timeoutMs: SESSION_TIMEOUT_MS,
      signal,
    });
    current.model = model;
  } else {
    warnOnce(
      `harness acp: the agent offers no model "${model}" (no such value of a "model" session config option): ` +
        `--model is not applied`,
    );
  }
}
