/**
 * The agent loop: request → stream (assistant + stream_event messages) → tools (user
 * tool_result messages) → again, until the model ends its turn, a limit is hit, the run is
 * interrupted or something fails. It never throws: every ending is a `LoopOutcome`.
 */
import { errorMessage } from '../process/errors.ts';
import { userMessage } from '../messages/user.ts';
import { edeDiagnostic, INTERRUPTED, INTERRUPTED_TOOLS, toolUseError } from '../messages/notices.ts';
import type {
  AgentMessage,
  SubagentStats,
  AssistantContentBlock,
  MessageParam,
  PermissionDenial,
  ResultErrorSubtype,
  TerminalReason,
  ToolUseBlock,
  UserContentBlock,
  UserMessage,
} from '../messages/types.ts';
import { newRecoveryState, recoveryFor, systemReminder } from './recovery.ts';
import type { AgentContext } from './context.ts';
import { stopHook, stopHookContinues } from './hooks.ts';
import type { ResultApiError } from './api-error.ts';
import type { UsageTracker } from './usage.ts';
import { runToolBatch } from './tool-batch.ts';
import { requestWithRetry } from './model-turn.ts';

/** How a run of the loop ended. */
export interface LoopOutcome {
  subtype: 'success' | ResultErrorSubtype;
  /** Final answer text (success). */
  text: string;
  errors: string[];
  /**
   * Turns as Claude Code counts them: the prompt plus every user message the run added (one per
   * tool result, the interruption notice, a Stop hook's feedback).
   */
  numTurns: number;
  /**
   * Model turns begun, as Claude Code counts them against `maxTurns`: the first request, then one per round of tool
   * results and per Stop hook continuation (a cut reply continued or an empty one nudged stays in its turn).
   */
  turns: number;
  stopReason: string | null;
  terminalReason: TerminalReason;
  /** A StructuredOutput call gave the prompt's structured output (the run ended after it, as Claude Code ends it). */
  structuredOutput?: unknown;
  /** A model request failed for good: the result takes Claude Code's form for it (`success`, `is_error`, its text). */
  apiError?: ResultApiError;
  /**
   * The result's ttft timings as a wrapped agent reported them (agentpipe's own loop measures them in
   * `RunState.marks`).
   */
  timings?: { ttft_ms?: number; ttft_stream_ms?: number; time_to_request_ms?: number; first_content_frame_ms?: number };
  /** With partial messages, when the prompt made a request: `RunState.begunMessageIds` (`result.begun_message_ids`). */
  begunMessageIds?: string[];
}

/** Per-prompt state shared with subagents. */
export interface RunState {
  signal: AbortSignal;
  usage: UsageTracker;
  denials: PermissionDenial[];
  /** Aborts the prompt from inside (a permission answer with `interrupt`). */
  interrupt(): void;
  /**
   * The main agent's first request sent, first stream event and first assistant message of the
   * prompt (`monotonicMs()`), for the result's ttft timings.
   */
  marks?: { requestSent?: number; firstEvent?: number; firstContent?: number; firstAssistant?: number };
  /** The subagents the prompt started (`result.subagent_stats`); subagents count into their parent's. */
  subagents?: SubagentStats;
  /**
   * Set when `--fallback-model` switched models during the prompt: the session's model it replaced,
   * and the one used for the rest of the prompt (`currentModel`).
   */
  fallback?: { from: string; to: string };
  /** With partial messages: the ids of the main agent's responses that began to stream (`result.begun_message_ids`). */
  begunMessageIds?: string[];
}

/** Where a loop starts when it continues a prompt (a cluster takeover) rather than starting one. */
export interface LoopResume {
  /** Tool calls of the history's last answer that did not run yet: they run before the first model request. */
  pendingUses: ToolUseBlock[];
}

/**
 * Runs the loop on `history` (which ends with the prompt, or with the answer whose `resume.pendingUses` run first).
 * `maxTurns` limits the model turns of this run (default `ctx.maxTurns`; structured output passes what is left of
 * it).
 */
export function runAgentLoop(
  ctx: AgentContext,
  history: MessageParam[],
  run: RunState,
  maxTurns = ctx.maxTurns,
  resume?: LoopResume,
): Promise<LoopOutcome> {
  return new LoopRun(ctx, history, run).loop(maxTurns, resume);
}

/** One run of the loop: what it counts (turns, user messages, Stop hook continuations) and the steps that end it. */
class LoopRun {
  #turns = 0;
  /** The current turn made its request; a round of tool results or a Stop hook continuation ends it. */
  #inTurn = false;
  #userMessages = 0;
  #stopReason: string | null = null;
  #stopHookContinuations = 0;
  readonly #recoveries = newRecoveryState();

  readonly ctx: AgentContext;
  readonly history: MessageParam[];
  readonly run: RunState;

  constructor(ctx: AgentContext, history: MessageParam[], run: RunState) {
    this.ctx = ctx;
    this.history = history;
    this.run = run;
  }

  /** Loops to the run's outcome (never throws). */
  async loop(maxTurns: number | undefined, resume?: LoopResume): Promise<LoopOutcome> {
    const { ctx, history, run } = this;
    try {
      if (resume?.pendingUses.length) {
        const ending = await this.#runCalls(resume.pendingUses);
        if (ending) return ending;
      }
      for (;;) {
        const limit = await this.#limitBeforeRequest(maxTurns);
        if (limit) return limit;
        await ctx.compaction?.beforeRequest(ctx, history, run);
        if (!this.#inTurn) this.#turns++;
        this.#inTurn = true;
        const response = await requestWithRetry(ctx, history, run);
        if (response.kind === 'aborted')
          return await this.#stopInterrupted(INTERRUPTED, 'aborted_streaming', response.streamed, response.closing);
        if (response.kind === 'failed') {
          this.#stopReason = 'stop_sequence'; // the synthetic message's, as Claude Code reports it
          return {
            ...this.#end('error_during_execution', 'api_error', [response.report.text]),
            apiError: response.report,
          };
        }
        this.#stopReason = response.stopReason;
        const ending = await this.#answered(response.blocks);
        if (ending) return ending;
      }
    } catch (error) {
      if (run.signal.aborted) return await this.#stopInterrupted(INTERRUPTED, 'aborted_streaming');
      return this.#end('error_during_execution', 'model_error', [errorMessage(error)]);
    }
  }

  #end(subtype: LoopOutcome['subtype'], terminalReason: TerminalReason, errors: string[] = [], text = ''): LoopOutcome {
    const numTurns = 1 + this.#userMessages;
    return { subtype, text, errors, numTurns, turns: this.#turns, stopReason: this.#stopReason, terminalReason };
  }

  /** Emits a user message the run added (each one is a turn). */
  readonly #emitUser = async (
    content: UserContentBlock[],
    extra: Pick<UserMessage, 'tool_use_result' | 'tool_result_meta' | 'isSynthetic'> = {},
  ): Promise<void> => {
    this.#userMessages++;
    await this.ctx.emit(userMessage(content, this.ctx.sessionId, this.ctx.parentToolUseId, extra));
  };

  /**
   * Ends an interrupted run: the history closed, the notice, then what closes a cut response on the stream
   * (`closing`); the result's error is Claude Code's diagnostic line, whose last message is the notice (Claude faces).
   */
  async #stopInterrupted(
    text: string,
    reason: TerminalReason,
    streamed: AssistantContentBlock[] = [],
    closing: AgentMessage[] = [],
  ): Promise<LoopOutcome> {
    closeInterrupted(this.history, text, streamed);
    await this.#emitUser([{ type: 'text', text }]);
    for (const message of closing) await this.ctx.emit(message);
    const error = this.ctx.policy.claudeInterrupts ? edeDiagnostic('user', 'n/a', this.#stopReason) : text;
    return this.#end('error_during_execution', reason, [error]);
  }

  /**
   * The outcome to end with before the next request (interrupted, out of turns or budget), or undefined. As Claude
   * Code: the limit is checked when a turn would begin, and the result's `num_turns` is then the turn that would
   * have begun (the limit plus one), however many user messages the turns added.
   */
  async #limitBeforeRequest(maxTurns: number | undefined): Promise<LoopOutcome | undefined> {
    const { ctx, run } = this;
    if (run.signal.aborted) return await this.#stopInterrupted(INTERRUPTED, 'aborted_streaming');
    if (maxTurns !== undefined && !this.#inTurn && this.#turns >= maxTurns) {
      const errors = [`Reached maximum number of turns (${ctx.maxTurns ?? maxTurns})`];
      return { ...this.#end('error_max_turns', 'max_turns', errors), numTurns: this.#turns + 1 };
    }
    if (overBudget(ctx, run)) {
      return this.#end('error_max_budget_usd', 'budget_exhausted', [`Reached maximum budget ($${ctx.maxBudgetUsd})`]);
    }
    return undefined;
  }

  /** Takes the model's answer: the outcome to end with, or undefined to ask the model again. */
  async #answered(blocks: AssistantContentBlock[]): Promise<LoopOutcome | undefined> {
    const { ctx, history, run } = this;
    history.push({ role: 'assistant', content: blocks.length ? blocks : [{ type: 'text', text: '' }] });

    const uses = blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    const recovery =
      uses.length === 0 && ctx.policy.recoversReplies
        ? recoveryFor(blocks, this.#stopReason, this.#recoveries)
        : undefined;
    if (recovery) {
      // As Claude Code: a cut reply is continued, an empty one nudged, instead of ending the turn.
      if (recovery.dropReply) history.pop();
      history.push({ role: 'user', content: [{ type: 'text', text: systemReminder(recovery.note) }] });
      await this.#emitUser([{ type: 'text', text: recovery.note }], { isSynthetic: true });
      return undefined;
    }
    if (uses.length === 0) return this.#endTurn(blocks);
    // As Claude Code: a budget spent by this turn stops the prompt before its tools run.
    if (ctx.policy.budgetStopsBeforeTools && overBudget(ctx, run)) {
      history.push({ role: 'user', content: uses.map((use) => notRun(use, 'the prompt reached --max-budget-usd')) });
      return this.#end('error_max_budget_usd', 'budget_exhausted', [`Reached maximum budget ($${ctx.maxBudgetUsd})`]);
    }
    return this.#runCalls(uses);
  }

  /** An answer without tool calls ends the prompt, unless a Stop hook blocks the ending (then undefined). */
  async #endTurn(blocks: AssistantContentBlock[]): Promise<LoopOutcome | undefined> {
    const { ctx, history, run } = this;
    const texts = blocks.filter((b) => b.type === 'text').map((b) => b.text);
    const text = ctx.policy.lastTextIsResult ? (texts.at(-1) ?? '') : texts.join('');
    const stop = await stopHook(ctx, text, this.#stopHookContinuations, run.signal);
    if (stop.stop)
      return this.#end('error_during_execution', 'hook_stopped', [`Stopped by a hook: ${stop.stop}`], text);
    if (stop.continueWith === undefined) return this.#end('success', 'completed', [], text);
    // A Stop hook blocked the ending: the model goes on with the hook's reason (bounded).
    this.#stopHookContinuations++;
    this.#inTurn = false;
    await stopHookContinues(ctx, stop.continueWith, history, this.#emitUser);
    return undefined;
  }

  /** Runs one answer's tool calls and records their results; the outcome to end with, or undefined to go on. */
  async #runCalls(uses: ToolUseBlock[]): Promise<LoopOutcome | undefined> {
    const { ctx, history, run } = this;
    const batch = await runToolBatch(ctx, run, uses, this.#emitUser);
    this.#inTurn = false; // the next request begins a turn
    // The results in the order they finished in, as Claude Code 2.1.332 sends them and as the transcript has them;
    // then what PostToolUse hooks told the model, each in a <system-reminder>.
    const context = batch.context.map((text) => ({ type: 'text' as const, text: systemReminder(text) }));
    history.push({ role: 'user', content: [...batch.results.values(), ...context] });
    if (batch.hookStop !== undefined)
      return this.#end('error_during_execution', 'hook_stopped', [`Stopped by a hook: ${batch.hookStop}`]);
    if (run.signal.aborted || batch.interruptedByAnswer)
      return this.#stopInterrupted(INTERRUPTED_TOOLS, 'aborted_tools');
    // As Claude Code: the structured output ends the prompt; its JSON is the result text.
    if (batch.structuredOutput !== undefined)
      return {
        ...this.#end('success', 'completed', [], JSON.stringify(batch.structuredOutput)),
        structuredOutput: batch.structuredOutput,
      };
    return undefined;
  }
}

const overBudget = (ctx: AgentContext, run: RunState) =>
  ctx.maxBudgetUsd !== undefined && run.usage.totalCostUsd >= ctx.maxBudgetUsd;

/** The result of a call that was not run, for the history only (tool pairs stay whole for the API). */
const notRun = (use: ToolUseBlock, why: string): UserContentBlock => ({
  type: 'tool_result',
  tool_use_id: use.id,
  content: toolUseError(`Not run: ${why}`),
  is_error: true,
});

/**
 * Closes the history of an interrupted turn as Claude Code does: what the model had streamed
 * (text cut short included) stays, its unanswered tool calls get an error result (not emitted:
 * tool pairs stay whole for the API), then the notice. `session/transcript-rebuild.ts` rebuilds
 * the same history from the transcript.
 */
function closeInterrupted(history: MessageParam[], notice: string, streamed: AssistantContentBlock[]): void {
  if (streamed.length) {
    history.push({ role: 'assistant', content: streamed });
    const uses = streamed.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (uses.length)
      history.push({
        role: 'user',
        content: uses.map((u) => ({
          type: 'tool_result',
          tool_use_id: u.id,
          content: INTERRUPTED_TOOLS,
          is_error: true,
        })),
      });
  }
  history.push({ role: 'user', content: [{ type: 'text', text: notice }] });
}
