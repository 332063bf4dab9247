/**
 * The session's state as Claude Code 2.1.332's `initialize` answer reports it beside the commands, models and account:
 * the version, the permission mode, whether hooks were registered and honour `onFailure`, and the features agentpipe
 * does not have (fast mode, analytics, feedback surveys, Remote Control), reported off as Claude Code reports them off.
 */
import { COMPAT_CLAUDE_CODE_VERSION } from '../version.ts';
import type { ModelProvider } from '../model/types.ts';
import type { Session } from './session.ts';

/**
 * The `account` of the `initialize` answer (the SDK's `AccountInfo`): the Anthropic API is Claude Code's
 * `"firstParty"` whatever its base URL; another provider (OpenAI-compatible, the scripted model) has no value in the
 * SDK's list, so `apiProvider` is left out, as Claude Code leaves it out for a provider whose auth is external.
 */
export function accountInfo(provider: ModelProvider): Record<string, unknown> {
  return {
    apiKeySource: provider.apiKeySource,
    ...(provider.provider === 'anthropic' ? { apiProvider: 'firstParty' } : {}),
    tokenSource: 'none',
  };
}

/** What `system/init` and `initialize` both advertise (the SDK's capability names agentpipe implements). */
export const CAPABILITIES = ['interrupt_receipt_v1', 'interrupt_cancel_queued_v1'];

/**
 * What Claude Code 2.1.332 sends in `system/init` and the `initialize` answer while these features are off: agentpipe
 * has no fast mode and no analytics.
 */
export const FEATURES_OFF = {
  fast_mode_state: 'off',
  fast_mode_disabled_reason: 'sdk_opt_in_required',
  analytics_disabled: true,
} as const;

/** The state fields of the `initialize` answer; `hooksSent`: the request carried hooks (then `hooks_applied`). */
export function initializeState(session: Session, hooksSent: boolean): Record<string, unknown> {
  return {
    claude_code_version: COMPAT_CLAUDE_CODE_VERSION,
    current_permission_mode: session.ctx.permissions.mode,
    // Hook matchers' `onFailure: "block"` is honoured (tools/hooks/dispatcher.ts); the official SDK refuses a
    // session with such a hook unless this is true.
    hook_on_failure_supported: true,
    // The first initialize registers its hooks (a repeated one adds them too).
    ...(hooksSent ? { hooks_applied: true } : {}),
    // Matchers' `whenUnanswered` is not read: none is kept.
    hooks_when_unanswered_kept: 0,
    // Between two PreToolUse asks, another hook's reason outranks the client's own (tools/hooks/dispatcher.ts).
    other_hook_ask_outranks_host: true,
    session_state: session.running ? 'running' : 'idle',
    capabilities: CAPABILITIES,
    ...FEATURES_OFF,
    feedback_mode: { kind: 'disabled' },
    sandbox_enabled: false,
    remote_control_available: false,
    remote_control_auto_enable: false,
    remote_control_auto_connect_default: false,
    remote_control_auto_on_by_default: false,
    ide_rc_auto_enable_gate: false,
  };
}
