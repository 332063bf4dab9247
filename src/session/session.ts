/**
 * A session: the history, the agent context and the prompts run one after another. Each
 * prompt emits `system/init`, the conversation, and exactly one `result`, whatever happens.
 */
import os from 'node:os';
import type { AgentMessage, MessageParam, PermissionDenial, ResultMessage, SystemInitMessage, UserContentBlock } from '../messages/types.ts';
import type { InputUserMessage } from '../messages/control.ts';
import { newUuid } from '../messages/ids.ts';
import type { AgentContext } from '../agent/context.ts';
import { runAgentLoop, type LoopOutcome } from '../agent/loop.ts';
import { UsageTracker } from '../agent/usage.ts';
import { builtinTools } from '../tools/builtin/index.ts';
import { beginCheckpoint } from '../tools/checkpoints.ts';
import { isWholeToolRule, parseRules } from '../tools/permissions.ts';
import type { Tool } from '../tools/types.ts';
import type { ModelProvider } from '../model/types.ts';
import { VERSION } from '../version.ts';
import type { SessionOptions } from './options.ts';

/** Claude Code version we are wire-compatible with (reported in `system/init`). */
const COMPAT_CLAUDE_CODE_VERSION = '2.1.197';

export class Session {
  readonly id: string;
  readonly ctx: AgentContext;
  readonly history: MessageParam[] = [];
  /** Totals over the whole session (`get_session_cost`). */
  readonly totals = new UsageTracker();
  /** The model the session started with (`set_model` with no model returns to it). */
  readonly defaultModel: string;
  #abort?: AbortController;
  #running = false;

  constructor(options: SessionOptions, provider: ModelProvider, model: string, emit: (m: AgentMessage) => Promise<void>) {
    this.id = options.sessionId ?? newUuid();
    this.defaultModel = model;
    const cwd = options.cwd ?? process.cwd();
    const deny = parseRules(options.disallowedTools);
    let tools: Tool[] = [...builtinTools(), ...(options.extraTools ?? [])];
    if (options.tools) tools = tools.filter((t) => options.tools!.includes(t.name) || t.name.startsWith('mcp__'));
    tools = tools.filter((t) => !deny.some((rule) => isWholeToolRule(rule, t.name)));
    this.ctx = {
      provider, model, cwd, tools,
      system: systemPromptOf(options, cwd),
      sessionId: this.id,
      parentToolUseId: null,
      maxTurns: options.maxTurns,
      maxBudgetUsd: options.maxBudgetUsd,
      maxTokens: options.maxTokens ?? 16_384,
      thinkingBudgetTokens: options.maxThinkingTokens,
      permissions: { mode: options.permissionMode ?? 'default', allow: parseRules(options.allowedTools), deny },
      canUseTool: options.canUseTool,
      hooks: options.hooks,
      includePartialMessages: options.includePartialMessages ?? false,
      toolState: new Map(),
      progressThresholdMs: options.toolProgressThresholdMs ?? 1000,
      progressIntervalMs: options.toolProgressIntervalMs ?? 1000,
      maxRetries: options.maxRetries ?? 3,
      emit,
    };
  }

  /** True while a prompt runs. */
  get running(): boolean {
    return this.#running;
  }

  /** The `system/init` message for the next prompt. */
  initMessage(): SystemInitMessage {
    const ctx = this.ctx;
    return {
      type: 'system', subtype: 'init', cwd: ctx.cwd, session_id: this.id, tools: ctx.tools.map((t) => t.name), mcp_servers: [],
      model: ctx.model, permissionMode: ctx.permissions.mode, slash_commands: [], apiKeySource: ctx.provider.apiKeySource,
      claude_code_version: COMPAT_CLAUDE_CODE_VERSION, agentpipe_version: VERSION, output_style: 'default', agents: [], skills: [], plugins: [],
      uuid: newUuid(),
    };
  }

  /** Aborts the running prompt (model request, tools, child processes). */
  interrupt(): void {
    this.#abort?.abort(new DOMException('Interrupted', 'AbortError'));
  }

  /** Runs one prompt to its single `result`, which is emitted and returned. */
  async runPrompt(input: InputUserMessage, signal?: AbortSignal): Promise<ResultMessage> {
    const started = Date.now();
    const abort = new AbortController();
    const onOuterAbort = () => abort.abort(signal?.reason);
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    this.#abort = abort;
    this.#running = true;
    const usage = new UsageTracker();
    const denials: PermissionDenial[] = [];
    let outcome: LoopOutcome;
    try {
      await this.ctx.emit(this.initMessage());
      const uuid = input.uuid ?? newUuid();
      beginCheckpoint(this.ctx.toolState, uuid);
      this.history.push({ role: 'user', content: normalizeContent(input.message.content) });
      outcome = await runAgentLoop(this.ctx, this.history, { signal: abort.signal, usage, denials, interrupt: () => abort.abort() });
    } catch (error) {
      outcome = { subtype: 'error_during_execution', text: '', errors: [(error as Error).message], numTurns: 0, stopReason: null, terminalReason: 'model_error' };
    } finally {
      signal?.removeEventListener('abort', onOuterAbort);
      this.#abort = undefined;
      this.#running = false;
    }
    const result = this.#result(outcome, usage, denials, Date.now() - started);
    this.totals.totalCostUsd += usage.totalCostUsd;
    await this.ctx.emit(result);
    return result;
  }

  #result(outcome: LoopOutcome, usage: UsageTracker, denials: PermissionDenial[], durationMs: number): ResultMessage {
    const subtype = outcome.subtype;
    const base = {
      type: 'result' as const, subtype, is_error: subtype !== 'success', duration_ms: durationMs, duration_api_ms: usage.apiDurationMs, num_turns: outcome.numTurns,
      stop_reason: outcome.stopReason, session_id: this.id, total_cost_usd: usage.totalCostUsd, usage: usage.usage,
      modelUsage: usage.modelUsage, permission_denials: denials, terminal_reason: outcome.terminalReason, uuid: newUuid(),
    };
    if (subtype === 'success') return { ...base, subtype, is_error: false, result: outcome.text };
    return { ...base, subtype, is_error: true, errors: outcome.errors };
  }
}

function normalizeContent(content: string | UserContentBlock[]): string | UserContentBlock[] {
  return typeof content === 'string' ? content : content.filter((b) => b && typeof b === 'object');
}

function systemPromptOf(options: SessionOptions, cwd: string): string {
  const base = options.systemPrompt ?? [
    'You are agentpipe, a coding agent that works in the user\'s folder with tools.',
    'Use the tools to look before you answer; keep answers short and concrete.',
    `Working folder: ${cwd}`,
    `Platform: ${os.platform()}; date: ${new Date().toISOString().slice(0, 10)}`,
  ].join('\n');
  return options.appendSystemPrompt ? `${base}${base ? '\n\n' : ''}${options.appendSystemPrompt}` : base;
}
