/**
 * The agent's `session/request_permission`: answered from --allowed-tools/--disallowed-tools and
 * the permission mode where they decide, else asked of the session's client; the answer is the
 * agent's matching option (allow or reject), or `cancelled`.
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { PermissionResult } from '../../messages/control.ts';
import type { PermissionMode } from '../../messages/types.ts';
import { isWholeToolRule, parseRules, type PermissionRule } from '../../tools/permission-rules.ts';
import type { HarnessConfig } from '../types.ts';
import { Aborted, errorText, settle } from './shared.ts';
import type { PromptTranslator } from './translator.ts';

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/** The agent's option of the first kind it offers, or `cancelled`. */
function choose(params: RequestPermissionRequest, kinds: string[]): RequestPermissionResponse {
  for (const kind of kinds) {
    const option = params.options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  return CANCELLED;
}

/** The session's permission rules, applied to the agent's requests. */
export class AcpPermissions {
  readonly #config: HarnessConfig;
  readonly #allowed: PermissionRule[];
  readonly #denied: PermissionRule[];
  readonly #warnOnce: (line: string) => void;

  /** The --disallowed-tools rules (fs/* holds them too). */
  get denied(): PermissionRule[] {
    return this.#denied;
  }

  constructor(config: HarnessConfig, warnOnce: (line: string) => void) {
    this.#config = config;
    this.#warnOnce = warnOnce;
    this.#allowed = this.#rules(config.allowedTools);
    this.#denied = this.#rules(config.disallowedTools);
  }

  /** Answers a request of the running prompt; `agentMode` is the agent's own permission mode. */
  async answer(
    prompt: PromptTranslator,
    params: RequestPermissionRequest,
    requestSignal: AbortSignal,
    agentMode: PermissionMode | undefined,
  ): Promise<RequestPermissionResponse> {
    const signal = AbortSignal.any([prompt.interrupt.signal, requestSignal]);
    await settle();
    const tool = await prompt.permissionTool(params.toolCall);
    if (signal.aborted) return CANCELLED;
    let answer: PermissionResult;
    if (this.#denied.some((rule) => isWholeToolRule(rule, tool.name)))
      answer = { behavior: 'deny', message: `${tool.name} is denied by --disallowed-tools` };
    else if (this.#allowed.some((rule) => isWholeToolRule(rule, tool.name))) answer = { behavior: 'allow' };
    else if (this.#config.permissionMode === 'bypassPermissions' && agentMode !== 'bypassPermissions')
      answer = { behavior: 'allow' };
    else {
      try {
        const aborted = new Promise<never>((_, reject) => {
          if (signal.aborted) reject(new Aborted());
          signal.addEventListener('abort', () => reject(new Aborted()), { once: true });
        });
        answer = await Promise.race([prompt.state.turn.askPermission(tool.name, tool.input, tool.id, signal), aborted]);
      } catch {
        return CANCELLED;
      }
    }
    if (answer.behavior === 'allow') {
      if (answer.updatedInput && JSON.stringify(answer.updatedInput) !== JSON.stringify(tool.input)) {
        this.#warnOnce(
          'harness acp: a permission answer changed the tool input; ACP cannot pass that on, the agent runs ' +
            'its own input',
        );
      }
      return choose(params, ['allow_once', 'allow_always']);
    }
    prompt.state.denials.push({ tool_name: tool.name, tool_use_id: tool.id, tool_input: tool.input });
    if (answer.interrupt) prompt.interrupt.abort();
    return choose(params, ['reject_once', 'reject_always']);
  }

  #rules(values: string[]): PermissionRule[] {
    try {
      return parseRules(values);
    } catch (error) {
      this.#config.warn(`harness acp: permission rules not applied: ${errorText(error)}`);
      return [];
    }
  }
}

/** Cancelled: there is no prompt (or not this session's) to ask for. */
export const PERMISSION_CANCELLED = CANCELLED;
