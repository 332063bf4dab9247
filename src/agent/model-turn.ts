/**
 * One model request of the loop: streamed (each finished block an `assistant` message, partial messages when asked),
 * assembled, retried while nothing was streamed (retry.ts), switched to the fallback model, its usage counted.
 */
import { errorMessage } from '../process/errors.ts';
import { modelRequest } from './request.ts';
import { watchStalls } from './stall-watch.ts';
import { mergeConsecutive } from './merged-history.ts';
import { monotonicMs } from '../process/clock.ts';
import { sleep } from '../process/retry.ts';
import type { ApiMessage, AssistantContentBlock, MessageParam, StreamEvent, ToolUseBlock } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { ModelError } from '../model/errors.ts';
import { redactTokens } from '../model/auth.ts';
import { resendableCut, retryErrorName } from './retry.ts';
import type { AgentContext } from './context.ts';
import { MessageAssembler } from './assembler.ts';
import { toolNamed } from './tool-runner.ts';
import { currentModel, fallBack } from './fallback.ts';
import { apiErrorAssistant, describeApiError, type ApiErrorReport } from './api-error.ts';
import type { ChatSpan } from '../telemetry/types.ts';
import { toolUseMeta } from './tool-use-meta.ts';
import { PartialStream, thinkingDisplayOf } from './partial-stream.ts';
import { thinkingOf } from '../model/types.ts';
import type { RunState } from './loop.ts';

/** How one model request ended. */
export type ModelResponse =
  | { kind: 'ok'; blocks: AssistantContentBlock[]; stopReason: string | null }
  | { kind: 'aborted'; streamed: AssistantContentBlock[] }
  | { kind: 'failed'; report: ApiErrorReport };

/** One model request, retried as `retry.ts` says while nothing was streamed yet. */
export async function requestWithRetry(
  ctx: AgentContext,
  history: MessageParam[],
  run: RunState,
): Promise<ModelResponse> {
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
 * A key the provider rejected for good (401/403 after the retries): `auth_status` with the error, under the
 * agentpipe outcome policy only (Claude Code sends none: `OutcomePolicy.reportsRejectedKey`). A key helper reports
 * its own; missing credentials were reported when the session opened.
 */
async function reportRejectedKey(ctx: AgentContext, error: unknown): Promise<void> {
  const source = ctx.provider.apiKeySource;
  if (!ctx.policy.reportsRejectedKey) return;
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

/** `system/status` "requesting" (partial messages on, main agent) and the request's debug line. */
async function announceRequest(ctx: AgentContext, model: string, messageCount: number): Promise<void> {
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
    `request: model ${model}, ${messageCount} messages, tools [${ctx.tools.map((t) => t.name).join(', ')}]` +
      `${ctx.effort ? `, effort ${ctx.effort}` : ''}${ctx.thinking ? `, thinking ${ctx.thinking.type}` : ''}` +
      `${ctx.agent ? `, agent ${ctx.agent.type}` : ''}`,
  );
}

/**
 * How streamOnce takes each event of the stream: into the assembler, as partial messages (when asked), and each
 * finished block as an `assistant` message; the ttft marks of the main agent. `emitBlock` also sends the block an
 * interruption cut short.
 */
function eventTaker(
  ctx: AgentContext,
  assembler: MessageAssembler,
  stream: PartialStream,
  marks: RunState['marks'],
): {
  take: (event: StreamEvent) => false | Promise<boolean>;
  emitBlock: (block: AssistantContentBlock) => Promise<void>;
} {
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
  return { take, emitBlock };
}

async function streamOnce(
  ctx: AgentContext,
  history: MessageParam[],
  run: RunState,
  assembler: MessageAssembler,
): Promise<number> {
  const model = currentModel(ctx, run);
  const messages = mergeConsecutive(history);
  await announceRequest(ctx, model, messages.length);
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
  const { take, emitBlock } = eventTaker(ctx, assembler, stream, marks);
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
export function countUsage(ctx: AgentContext, run: RunState, message: ApiMessage): number {
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

/** A call completed with its tool's `inputDefaults` (a call of invalid JSON stays as it is, for the tool to report). */
function fillDefaults(ctx: AgentContext, use: ToolUseBlock): void {
  const defaults = ctx.policy.fillsInputDefaults ? toolNamed(ctx.tools, use.name)?.inputDefaults : undefined;
  if (!defaults || '__invalid_input' in use.input) return;
  for (const [key, value] of Object.entries(defaults)) if (!(key in use.input)) use.input[key] = value;
}
