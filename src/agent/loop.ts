/**
 * The agent loop: request → stream (assistant + stream_event messages) → tools (user
 * tool_result messages) → again, until the model ends its turn, a limit is hit, the run is
 * interrupted or something fails. It never throws: every ending is a `LoopOutcome`.
 */
import { errorMessage } from '../process/errors.ts';
import { userMessage } from '../messages/user.ts';
import { INTERRUPTED, INTERRUPTED_TOOLS, toolUseError } from '../messages/notices.ts';
import { modelRequest } from './request.ts';
import { watchStalls } from './stall-watch.ts';
import { mergeConsecutive } from './merged-history.ts';
import { monotonicMs } from '../process/clock.ts';
import { envNumber } from '../process/env-number.ts';
import { sleep } from '../process/retry.ts';
import type {
  SubagentStats,
  ApiMessage,
  AssistantContentBlock,
  MessageParam,
  PermissionDenial,
  ResultErrorSubtype,
  TerminalReason,
  StreamEvent,
  ToolUseBlock,
  UserContentBlock,
  UserMessage,
} from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { ModelError } from '../model/errors.ts';
import { redactTokens } from '../model/auth.ts';
import { newRecoveryState, recoveryFor, systemReminder } from './recovery.ts';
import { resendableCut, retryErrorName } from './retry.ts';
import type { AgentContext } from './context.ts';
import { MessageAssembler } from './assembler.ts';
import { runToolCall, toolNamed } from './tool-runner.ts';
import { stopHook, stopHookContinues } from './hooks.ts';
import { currentModel, fallBack } from './fallback.ts';
import { apiErrorAssistant, describeApiError, type ApiErrorReport, type ResultApiError } from './api-error.ts';
import type { UsageTracker } from './usage.ts';
import type { ChatSpan } from '../telemetry/types.ts';
import { toolUseMeta } from './tool-use-meta.ts';
import { PartialStream, thinkingDisplayOf } from './partial-stream.ts';
import { thinkingOf } from '../model/types.ts';

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
  /** Model requests made (what `maxTurns` limits). */
  requests: number;
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

/**
 * Most tool calls of one model turn that run at the same time: CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY, default 10 (as
 * Claude Code).
 */
const maxToolConcurrency = () => envNumber('CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY', 10, { integer: true });

/** Where a loop starts when it continues a prompt (a cluster takeover) rather than starting one. */
export interface LoopResume {
  /** Tool calls of the history's last answer that did not run yet: they run before the first model request. */
  pendingUses: ToolUseBlock[];
}

/**
 * Runs the loop on `history` (which ends with the prompt, or with the answer whose `resume.pendingUses` run first).
 * `maxRequests` limits the model requests of this run (default `ctx.maxTurns`; structured output passes what is left
 * of it).
 */
export async function runAgentLoop(
  ctx: AgentContext,
  history: MessageParam[],
  run: RunState,
  maxRequests = ctx.maxTurns,
  resume?: LoopResume,
): Promise<LoopOutcome> {
  let requests = 0;
  let userMessages = 0;
  let stopReason: string | null = null;
  let stopHookContinuations = 0;
  const recoveries = newRecoveryState();
  const end = (
    subtype: LoopOutcome['subtype'],
    terminalReason: TerminalReason,
    errors: string[] = [],
    text = '',
  ): LoopOutcome => ({ subtype, text, errors, numTurns: 1 + userMessages, requests, stopReason, terminalReason });
  /** Emits a user message the run added (each one is a turn). */
  const emitUser = async (
    content: UserContentBlock[],
    extra: Pick<UserMessage, 'tool_use_result' | 'tool_result_meta' | 'isSynthetic'> = {},
  ) => {
    userMessages++;
    await ctx.emit(userMessage(content, ctx.sessionId, ctx.parentToolUseId, extra));
  };
  const stopInterrupted = async (text: string, reason: TerminalReason, streamed: AssistantContentBlock[] = []) => {
    closeInterrupted(history, text, streamed);
    await emitUser([{ type: 'text', text }]);
    return end('error_during_execution', reason, [text]);
  };
  /** Runs one answer's tool calls and records their results; the outcome to end with, or undefined to go on. */
  const runCalls = async (uses: ToolUseBlock[]): Promise<LoopOutcome | undefined> => {
    const batch = await runToolBatch(ctx, run, uses, emitUser);
    // The results in the order they finished in, as Claude Code 2.1.332 sends them and as the transcript has them;
    // then what PostToolUse hooks told the model, each in a <system-reminder>.
    const context = batch.context.map((text) => ({ type: 'text' as const, text: systemReminder(text) }));
    history.push({ role: 'user', content: [...batch.results.values(), ...context] });
    if (batch.hookStop !== undefined)
      return end('error_during_execution', 'hook_stopped', [`Stopped by a hook: ${batch.hookStop}`]);
    if (run.signal.aborted || batch.interruptedByAnswer) return stopInterrupted(INTERRUPTED_TOOLS, 'aborted_tools');
    // As Claude Code: the structured output ends the prompt; its JSON is the result text.
    if (batch.structuredOutput !== undefined)
      return {
        ...end('success', 'completed', [], JSON.stringify(batch.structuredOutput)),
        structuredOutput: batch.structuredOutput,
      };
    return undefined;
  };

  try {
    if (resume?.pendingUses.length) {
      const ending = await runCalls(resume.pendingUses);
      if (ending) return ending;
    }
    for (;;) {
      if (run.signal.aborted) return await stopInterrupted(INTERRUPTED, 'aborted_streaming');
      if (maxRequests !== undefined && requests >= maxRequests) {
        return end('error_max_turns', 'max_turns', [
          `Reached maximum number of turns (${ctx.maxTurns ?? maxRequests})`,
        ]);
      }
      if (overBudget(ctx, run)) {
        return end('error_max_budget_usd', 'budget_exhausted', [`Reached maximum budget ($${ctx.maxBudgetUsd})`]);
      }
      await ctx.compaction?.beforeRequest(ctx, history, run);
      requests++;
      const response = await requestWithRetry(ctx, history, run);
      if (response.kind === 'aborted')
        return await stopInterrupted(INTERRUPTED, 'aborted_streaming', response.streamed);
      if (response.kind === 'failed') {
        stopReason = 'stop_sequence'; // the synthetic message's, as Claude Code reports it
        return { ...end('error_during_execution', 'api_error', [response.report.text]), apiError: response.report };
      }
      const { blocks } = response;
      stopReason = response.stopReason;
      history.push({ role: 'assistant', content: blocks.length ? blocks : [{ type: 'text', text: '' }] });

      const uses = blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      const recovery =
        uses.length === 0 && ctx.policy.recoversReplies ? recoveryFor(blocks, stopReason, recoveries) : undefined;
      if (recovery) {
        // As Claude Code: a cut reply is continued, an empty one nudged, instead of ending the turn.
        if (recovery.dropReply) history.pop();
        history.push({ role: 'user', content: [{ type: 'text', text: systemReminder(recovery.note) }] });
        await emitUser([{ type: 'text', text: recovery.note }], { isSynthetic: true });
        continue;
      }
      if (uses.length === 0) {
        const texts = blocks.filter((b) => b.type === 'text').map((b) => b.text);
        const text = ctx.policy.lastTextIsResult ? (texts.at(-1) ?? '') : texts.join('');
        const stop = await stopHook(ctx, text, stopHookContinuations, run.signal);
        if (stop.stop) return end('error_during_execution', 'hook_stopped', [`Stopped by a hook: ${stop.stop}`], text);
        if (stop.continueWith === undefined) return end('success', 'completed', [], text);
        // A Stop hook blocked the ending: the model goes on with the hook's reason (bounded).
        stopHookContinuations++;
        await stopHookContinues(ctx, stop.continueWith, history, emitUser);
        continue;
      }
      // As Claude Code: a budget spent by this turn stops the prompt before its tools run.
      if (ctx.policy.budgetStopsBeforeTools && overBudget(ctx, run)) {
        history.push({ role: 'user', content: uses.map((use) => notRun(use, 'the prompt reached --max-budget-usd')) });
        return end('error_max_budget_usd', 'budget_exhausted', [`Reached maximum budget ($${ctx.maxBudgetUsd})`]);
      }
      const ending = await runCalls(uses);
      if (ending) return ending;
    }
  } catch (error) {
    if (run.signal.aborted) return await stopInterrupted(INTERRUPTED, 'aborted_streaming');
    return end('error_during_execution', 'model_error', [errorMessage(error)]);
  }
}

/** A call completed with its tool's `inputDefaults` (a call of invalid JSON stays as it is, for the tool to report). */
function fillDefaults(ctx: AgentContext, use: ToolUseBlock): void {
  const defaults = ctx.policy.fillsInputDefaults ? toolNamed(ctx.tools, use.name)?.inputDefaults : undefined;
  if (!defaults || '__invalid_input' in use.input) return;
  for (const [key, value] of Object.entries(defaults)) if (!(key in use.input)) use.input[key] = value;
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

/** What one answer's tool calls gave. */
interface BatchOutcome {
  /** By call id, in the order the calls finished. */
  results: Map<string, UserContentBlock>;
  interruptedByAnswer: boolean;
  /** PostToolUse hooks' context for the model, beside the results. */
  context: string[];
  hookStop?: string;
  structuredOutput?: unknown;
}

/**
 * Runs one answer's tool calls (read-only ones together, see callBatches), each result emitted as soon as it is there.
 */
async function runToolBatch(
  ctx: AgentContext,
  run: RunState,
  uses: ToolUseBlock[],
  emitUser: (
    content: UserContentBlock[],
    extra?: Pick<UserMessage, 'tool_use_result' | 'tool_result_meta'>,
  ) => Promise<void>,
): Promise<BatchOutcome> {
  const out: BatchOutcome = { results: new Map(), interruptedByAnswer: false, context: [] };
  /** Runs one call (or says why it did not run) and emits its result as soon as it is there. */
  const runOne = async (use: ToolUseBlock): Promise<void> => {
    if (run.signal.aborted) {
      out.results.set(use.id, { type: 'tool_result', tool_use_id: use.id, content: INTERRUPTED_TOOLS, is_error: true });
      return;
    }
    if (out.hookStop !== undefined) {
      const block: UserContentBlock = {
        type: 'tool_result',
        tool_use_id: use.id,
        content: `Not run: a hook stopped the prompt (${out.hookStop})`,
        is_error: true,
      };
      out.results.set(use.id, block);
      await emitUser([block]);
      return;
    }
    const outcome = await runToolCall(ctx, use, run.signal, run);
    if (outcome.stop !== undefined) out.hookStop ??= outcome.stop;
    if (outcome.structuredOutput !== undefined) out.structuredOutput ??= outcome.structuredOutput;
    if (outcome.denied) run.denials.push({ tool_name: use.name, tool_use_id: use.id, tool_input: use.input });
    out.results.set(use.id, outcome.block);
    if (outcome.context) out.context.push(...outcome.context);
    await emitUser([outcome.block], {
      ...(outcome.data !== undefined ? { tool_use_result: outcome.data } : {}),
      ...(outcome.meta ? { tool_result_meta: [outcome.meta] } : {}),
    });
    if (outcome.interrupt) {
      out.interruptedByAnswer = true;
      run.interrupt();
    }
  };
  for (const batch of await callBatches(ctx, uses)) {
    if (batch.concurrent) await runConcurrently(batch.uses, maxToolConcurrency(), runOne);
    else for (const use of batch.uses) await runOne(use);
  }
  return out;
}

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

/**
 * The calls of one model turn in batches, as Claude Code runs them: consecutive calls that are
 * safe to run together (read-only: Read, Glob, Grep, read-only Bash, read-only MCP tools, Task)
 * form one concurrent batch; every other call runs alone, in order.
 */
async function callBatches(
  ctx: AgentContext,
  uses: ToolUseBlock[],
): Promise<Array<{ concurrent: boolean; uses: ToolUseBlock[] }>> {
  const batches: Array<{ concurrent: boolean; uses: ToolUseBlock[] }> = [];
  for (const use of uses) {
    const tool = toolNamed(ctx.tools, use.name);
    let safe = false;
    try {
      safe =
        uses.length > 1 &&
        tool !== undefined &&
        !('__invalid_input' in use.input) &&
        (await tool.isReadOnly(use.input));
    } catch {
      safe = false;
    }
    const last = batches.at(-1);
    if (safe && last?.concurrent) last.uses.push(use);
    else batches.push({ concurrent: safe, uses: [use] });
  }
  return batches;
}

/** Runs `task` on every item, at most `limit` at a time; settles when all have. */
async function runConcurrently<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

type Response =
  | { kind: 'ok'; blocks: AssistantContentBlock[]; stopReason: string | null }
  | { kind: 'aborted'; streamed: AssistantContentBlock[] }
  | { kind: 'failed'; report: ApiErrorReport };

/** One model request, retried as `retry.ts` says while nothing was streamed yet. */
async function requestWithRetry(ctx: AgentContext, history: MessageParam[], run: RunState): Promise<Response> {
  let chat = ctx.span?.chat(currentModel(ctx, run), ctx.maxTokens);
  let resent = 0;
  for (let attempt = 0; ; attempt++) {
    // A run that may have lost the right to act (a cluster lease) asks the model nothing more: thrown to the loop.
    await ctx.guard?.beforeModelRequest(run.signal);
    const assembler = new MessageAssembler();
    const started = Date.now();
    try {
      const costUsd = await streamOnce(ctx, history, run, assembler);
      run.usage.apiDurationMs += Date.now() - started;
      if (chat) endChat(chat, assembler, costUsd);
      return { kind: 'ok', blocks: assembler.finished, stopReason: assembler.message?.stop_reason ?? null };
    } catch (error) {
      run.usage.apiDurationMs += Date.now() - started;
      if (run.signal.aborted) {
        chat?.fail('interrupted', 'aborted');
        return { kind: 'aborted', streamed: assembler.finished };
      }
      const shown = ctx.includePartialMessages || assembler.finished.length > 0;
      const cut = resendableCut(ctx.policy.retries, error, { started: assembler.started, shown, resent });
      if (cut) {
        // Nothing of the cut answer reached the client: it is asked again, apart from the retries (Claude Code's).
        // The tokens its message_start reported were spent: they count, as Claude Code counts them.
        if (assembler.message) countUsage(ctx, run, assembler.message);
        const delay = ctx.policy.retries.delayMs(cut, resent++);
        chat?.retry(resent, delay, cut.kind);
        if (await announceRetry(ctx, run, cut, resent, ctx.policy.retries.cutStreamResends, delay)) continue;
        return { kind: 'aborted', streamed: [] };
      }
      const modelError = ctx.policy.retries.shouldRetry(error) ? error : undefined;
      if (!modelError || assembler.started || attempt >= ctx.maxRetries) {
        const failure = ModelError.isInstance(error) ? error : undefined;
        chat?.fail(errorMessage(error), failure?.kind ?? 'error');
        if (!assembler.started && (await fallBack(ctx, failure, run))) {
          attempt = -1; // the fallback model gets its own retries
          chat = ctx.span?.chat(currentModel(ctx, run), ctx.maxTokens);
          continue;
        }
        const report = describeApiError(error, {
          model: currentModel(ctx, run),
          provider: ctx.provider.provider,
          apiKeySource: ctx.provider.apiKeySource,
          history,
        });
        await reportRejectedKey(ctx, error);
        await ctx.emit(apiErrorAssistant(report, { sessionId: ctx.sessionId, parentToolUseId: ctx.parentToolUseId }));
        return { kind: 'failed', report };
      }
      const delay = ctx.policy.retries.delayMs(modelError, attempt);
      chat?.retry(attempt + 1, delay, modelError.kind);
      ctx.debug?.(
        'api',
        `retry ${attempt + 1}/${ctx.maxRetries} in ${delay} ms after ${modelError.kind}` +
          `${modelError.status ? ` (status ${modelError.status})` : ''}`,
      );
      if (!(await announceRetry(ctx, run, modelError, attempt + 1, ctx.maxRetries, delay)))
        return { kind: 'aborted', streamed: [] };
    }
  }
}

/** `system/api_retry` for retry number `attempt` of `max`, then the wait; false when the prompt was interrupted. */
async function announceRetry(
  ctx: AgentContext,
  run: RunState,
  error: ModelError,
  attempt: number,
  max: number,
  delay: number,
): Promise<boolean> {
  await ctx.emit({
    type: 'system',
    subtype: 'api_retry',
    attempt,
    max_retries: max,
    retry_delay_ms: delay,
    error_status: error.status ?? null,
    error: retryErrorName(error),
    uuid: newUuid(),
    session_id: ctx.sessionId,
  });
  try {
    await sleep(delay, { signal: run.signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * A key the provider rejected for good (401/403 after the retries): `auth_status` with the error, which the faces
 * show (docs/compat.md: Claude Code sends none). A key helper reports its own; missing credentials were reported
 * when the session opened.
 */
async function reportRejectedKey(ctx: AgentContext, error: unknown): Promise<void> {
  const source = ctx.provider.apiKeySource;
  if (!ModelError.isInstance(error) || error.kind !== 'authentication_failed') return;
  if (source === 'apiKeyHelper' || source === 'none') return;
  await ctx.emit({
    type: 'auth_status',
    isAuthenticating: false,
    output: [],
    error: redactTokens(error.message),
    uuid: newUuid(),
    session_id: ctx.sessionId,
  });
}

async function streamOnce(
  ctx: AgentContext,
  history: MessageParam[],
  run: RunState,
  assembler: MessageAssembler,
): Promise<number> {
  const model = currentModel(ctx, run);
  const messages = mergeConsecutive(history);
  if (ctx.announceRequests && ctx.includePartialMessages && ctx.parentToolUseId === null) {
    await ctx.emit({
      type: 'system',
      subtype: 'status',
      status: 'requesting',
      uuid: newUuid(),
      session_id: ctx.sessionId,
    });
  }
  ctx.debug?.(
    'api',
    `request: model ${model}, ${messages.length} messages, tools [${ctx.tools.map((t) => t.name).join(', ')}]` +
      `${ctx.effort ? `, effort ${ctx.effort}` : ''}${ctx.thinking ? `, thinking ${ctx.thinking.type}` : ''}` +
      `${ctx.agent ? `, agent ${ctx.agent.type}` : ''}`,
  );
  // This request's own signal: the run's interrupt, or a stall of this stream.
  const request = new AbortController();
  const stopRequest = () => request.abort(run.signal.reason);
  run.signal.addEventListener('abort', stopRequest, { once: true });
  if (run.signal.aborted) stopRequest();
  const marks = ctx.parentToolUseId === null ? run.marks : undefined;
  if (marks) marks.requestSent ??= monotonicMs();
  const asked = modelRequest(ctx, messages, request.signal, model);
  const stream = new PartialStream({
    parentToolUseId: ctx.parentToolUseId,
    sessionId: ctx.sessionId,
    thinkingDisplay: thinkingDisplayOf(thinkingOf(asked)),
    sentAt: monotonicMs(),
    begun: run.begunMessageIds,
  });
  // Batches when the provider has them (one async step per network read), else single events.
  const batches = ctx.provider.streamBatches ? watchStalls(ctx.provider.streamBatches(asked), request) : undefined;
  const events = batches ? undefined : watchStalls(ctx.provider.stream(asked), request);
  // One `assistant` message per finished block, at its end (before its content_block_stop event), as Claude Code
  // sends them: the fields of message_start (its usage, stop_reason null); the final ones are in the result.
  const emitBlock = async (block: AssistantContentBlock) => {
    const start = assembler.message;
    if (!start) return;
    const message = stream.assistant(block, start, assembler.startUsage, toolUseMeta(block, ctx.tools));
    if (marks) marks.firstAssistant ??= monotonicMs();
    await ctx.emit(message);
  };
  const partial = (event: StreamEvent): Promise<void> | undefined =>
    ctx.includePartialMessages ? ctx.emit(stream.message(event)) : undefined;
  /** Takes any event but a delta; true at message_stop. */
  const takeOther = async (event: StreamEvent): Promise<boolean> => {
    if (marks && event.type === 'message_start') marks.firstEvent ??= monotonicMs();
    const tokens = stream.observe(event);
    if (tokens) await ctx.emit(tokens);
    if (marks && event.type === 'content_block_start') marks.firstContent ??= monotonicMs();
    const block = event.type === 'content_block_stop' ? assembler.add(event) : undefined;
    if (block?.type === 'tool_use') fillDefaults(ctx, block);
    if (block) await emitBlock(block);
    const sent = partial(event);
    if (sent) await sent;
    if (event.type !== 'content_block_stop') assembler.add(event);
    return event.type === 'message_stop';
  };
  /**
   * Takes an event: false when done with it at once, else a promise of whether it was message_stop. A delta is taken
   * without a promise unless the output queue is full (an await per delta cost the delta rate a microtask each).
   */
  const take = (event: StreamEvent): false | Promise<boolean> => {
    if (event.type !== 'content_block_delta' || event.delta.type === 'thinking_delta') return takeOther(event);
    const sent = partial(event);
    if (sent)
      return sent.then(() => {
        assembler.add(event);
        return false;
      });
    assembler.add(event);
    return false;
  };
  try {
    if (batches) {
      read: for await (const batch of batches) {
        for (const event of batch) {
          const taking = take(event);
          if (taking && (await taking)) break read;
        }
      }
    } else if (events) {
      for await (const event of events) {
        const taking = take(event);
        if (taking && (await taking)) break;
      }
    }
  } finally {
    run.signal.removeEventListener('abort', stopRequest);
    // Interrupted mid-block: the text streamed so far is kept and shown, as Claude Code does.
    if (run.signal.aborted) {
      const cut = assembler.cutShort();
      if (cut) await emitBlock(cut);
    }
  }
  run.signal.throwIfAborted();
  const message = assembler.message;
  if (!message)
    throw new ModelError({ message: 'the stream ended before message_start', kind: 'connection', fault: 'cut' });
  return countUsage(ctx, run, message);
}

/** Adds an answer's usage to the prompt's; its cost. Keyed by the model asked for, as Claude Code keys modelUsage. */
function countUsage(ctx: AgentContext, run: RunState, message: ApiMessage): number {
  const model = currentModel(ctx, run);
  return run.usage.add(ctx.provider.usageModel?.(model, message.model) ?? model, message.usage);
}

/** Ends a request's `chat` span with the final message's usage and the cost it added (telemetry). */
function endChat(chat: ChatSpan, assembler: MessageAssembler, costUsd: number): void {
  const message = assembler.message!;
  chat.end({
    model: message.model,
    id: message.id,
    usage: message.usage,
    costUsd,
    finishReason: message.stop_reason ?? null,
    output: assembler.finished,
  });
}
