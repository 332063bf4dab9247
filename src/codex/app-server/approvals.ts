/**
 * agentpipe's permission questions (`canUseTool`) as Codex's server-to-client approval requests;
 * the client's decision is the answer:
 *
 * - Bash: `item/commandExecution/requestApproval`; `accept`, `acceptForSession` (this command),
 *   `acceptWithExecpolicyAmendment` (commands starting with its words, as the rule
 *   `Bash(<words>:*)`), `decline`, `cancel`.
 * - Edit, Write, MultiEdit, NotebookEdit: `item/fileChange/requestApproval`; `accept`,
 *   `acceptForSession` (the thread goes to `acceptEdits`), `decline`, `cancel`.
 * - Any other tool: `mcpServer/elicitation/request` (a form with no fields); `accept`, `decline`,
 *   `cancel`.
 *
 * `decline` denies the call (the model goes on), `cancel` denies it and interrupts the turn, as in
 * codex. What was accepted for the session is checked with agentpipe's own rule matching (on the
 * parsed command) before the client is asked again.
 */
import type { PermissionResult } from '../../messages/control.ts';
import type { RequestId } from '../../messages/json-rpc.ts';
import { bashTool } from '../../tools/builtin/bash.ts';
import { checkPermission, parseRules } from '../../tools/permissions.ts';
import { CommandApprovalResponse, ElicitationResponse, FileChangeApprovalResponse } from './params.ts';

const FILE_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

/** What an approval needs of its thread. */
export interface ApprovalHost {
  threadId: string;
  turnId: string | null;
  cwd: string;
  /** Sends a request to the client of the turn. */
  request(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): { id: RequestId; answer: Promise<unknown> };
  /** The request was answered (`serverRequest/resolved`, the thread's status back to active). */
  resolved(requestId: RequestId): Promise<void>;
  /** The thread waits on the client (`thread/status/changed` with `waitingOnApproval`). */
  waiting(): Promise<void>;
  /** Switches the thread to `acceptEdits` (a file change accepted for the session). */
  acceptEdits(): Promise<void>;
}

/** The answer; whether the client declined (the item then completes as `declined`) or cancelled the turn. */
export interface Approval {
  result: PermissionResult;
  declined: boolean;
  cancelled: boolean;
}

/** One thread's approvals: what was accepted for the session, and the questions to ask. */
export class Approvals {
  /** Allow rules the client gave for the rest of the session (Bash commands, tool names). */
  readonly #rules: string[] = [];

  async ask(
    host: ApprovalHost,
    toolName: string,
    input: Record<string, unknown>,
    o: { signal: AbortSignal; toolUseId: string; decisionReason?: string },
  ): Promise<Approval> {
    if (await this.#accepted(host, toolName, input)) return allow(input);
    const startedAtMs = Date.now();
    const base = { threadId: host.threadId, turnId: host.turnId, itemId: o.toolUseId, startedAtMs };
    if (toolName === 'Bash') {
      const command = typeof input.command === 'string' ? input.command : '';
      const params = {
        kind: 'command',
        ...base,
        environmentId: null,
        ...(o.decisionReason ? { reason: o.decisionReason } : {}),
        command,
        cwd: host.cwd,
        commandActions: [{ type: 'unknown', command }],
      };
      const answer = await this.#request(host, 'item/commandExecution/requestApproval', params, o.signal);
      const { decision } = CommandApprovalResponse.parse(answer);
      if (typeof decision === 'object') {
        if ('acceptWithExecpolicyAmendment' in decision)
          this.#rules.push(`Bash(${decision.acceptWithExecpolicyAmendment.execpolicy_amendment.join(' ')}:*)`);
        return allow(input);
      }
      if (decision === 'acceptForSession') this.#rules.push(`Bash(${command})`);
      return decide(decision, toolName, input);
    }
    if (FILE_TOOLS.has(toolName)) {
      const params = { ...base, reason: o.decisionReason ?? null, grantRoot: null };
      const answer = await this.#request(host, 'item/fileChange/requestApproval', params, o.signal);
      const { decision } = FileChangeApprovalResponse.parse(answer);
      if (decision === 'acceptForSession') await host.acceptEdits();
      return decide(decision, toolName, input);
    }
    const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
    const params = {
      threadId: host.threadId,
      turnId: host.turnId,
      serverName: mcp ? mcp[1] : 'agentpipe',
      mode: 'form',
      _meta: { toolName, toolUseId: o.toolUseId, input },
      message: `Allow ${mcp ? `${mcp[1]}.${mcp[2]}` : toolName}${o.decisionReason ? ` (${o.decisionReason})` : ''}?`,
      requestedSchema: { type: 'object', properties: {} },
    };
    const answer = await this.#request(host, 'mcpServer/elicitation/request', params, o.signal);
    const { action } = ElicitationResponse.parse(answer);
    return decide(action, toolName, input);
  }

  async #request(host: ApprovalHost, method: string, params: Record<string, unknown>, signal: AbortSignal) {
    await host.waiting();
    const { id, answer } = host.request(method, params, signal);
    try {
      return await answer;
    } finally {
      await host.resolved(id);
    }
  }

  /** True when the client accepted a call like this one for the session. */
  async #accepted(host: ApprovalHost, toolName: string, input: Record<string, unknown>): Promise<boolean> {
    if (!this.#rules.length) return false;
    if (toolName !== 'Bash') return this.#rules.includes(toolName);
    const verdict = await checkPermission({
      tool: bashTool,
      input,
      mode: 'default',
      allow: parseRules(this.#rules),
      deny: [],
      cwd: host.cwd,
    });
    return verdict.behavior === 'allow';
  }
}

function allow(input: Record<string, unknown>): Approval {
  return { result: { behavior: 'allow', updatedInput: input }, declined: false, cancelled: false };
}

/** accept / decline / cancel as the permission answer. */
function decide(decision: string, toolName: string, input: Record<string, unknown>): Approval {
  if (decision === 'accept' || decision === 'acceptForSession') return allow(input);
  if (decision === 'cancel')
    return {
      result: { behavior: 'deny', message: `The user cancelled ${toolName} and stopped the turn`, interrupt: true },
      declined: true,
      cancelled: true,
    };
  return { result: { behavior: 'deny', message: `The user declined ${toolName}` }, declined: true, cancelled: false };
}
