/**
 * The agent loop: request → stream (assistant + stream_event messages) → tools (user
 * tool_result messages) → again, until the model ends its turn, a limit is hit, the run is
 * interrupted or something fails. It never throws: every ending is a `LoopOutcome`.
 */
import { INTERRUPTED, INTERRUPTED_TOOLS } from '../messages/notices.ts';
import { modelRequest } from './request.ts';
import { watchStalls } from './stall-watch.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  AssistantContentBlock, AssistantMessage, MessageParam, PermissionDenial, ResultErrorSubtype, TerminalReason, ToolUseBlock, UserContentBlock,
} from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { ModelError } from '../model/errors.ts';
import type { AgentContext } from './context.ts';
import { MessageAssembler } from './assembler.ts';
import { runToolCall } from './tool-runner.ts';
import { stopHook } from './hooks.ts';
import { fallBack } from './fallback.ts';
import type { UsageTracker } from './usage.ts';

/** How a run of the loop ended. */
export interface LoopOutcome {
  subtype: 'success' | ResultErrorSubtype;
  /** Final answer text (success). */
  text: string;
  errors: string[];
  numTurns: number;
  stopReason: string | null;
  terminalReason: TerminalReason;
}

/** Per-prompt state shared with subagents. */
export interface RunState {
  signal: AbortSignal;
  usage: UsageTracker;
  denials: PermissionDenial[];
  /** Aborts the prompt from inside (a permission answer with `interrupt`). */
  interrupt(): void;
}


export async function runAgentLoop(ctx: AgentContext, history: MessageParam[], run: RunState): Promise<LoopOutcome> {
  let turns = 0;
  let stopReason: string | null = null;
  let stopHookContinuations = 0;
  const end = (subtype: LoopOutcome['subtype'], terminalReason: TerminalReason, errors: string[] = [], text = ''): LoopOutcome =>
    ({ subtype, text, errors, numTurns: turns, stopReason, terminalReason });

  try {
    for (;;) {
      if (run.signal.aborted) return await interrupted(ctx, history, INTERRUPTED, end, 'aborted_streaming');
      if (ctx.maxTurns !== undefined && turns >= ctx.maxTurns) {
        return end('error_max_turns', 'max_turns', [`Reached maximum number of turns (${ctx.maxTurns})`]);
      }
      if (ctx.maxBudgetUsd !== undefined && run.usage.totalCostUsd >= ctx.maxBudgetUsd) {
        return end('error_max_budget_usd', 'budget_exhausted', [`Reached maximum budget ($${ctx.maxBudgetUsd})`]);
      }
      await ctx.compaction?.beforeRequest(ctx, history, run);
      turns++;
      const response = await requestWithRetry(ctx, history, run);
      if (response.kind === 'aborted') return await interrupted(ctx, history, INTERRUPTED, end, 'aborted_streaming');
      if (response.kind === 'failed') return end('error_during_execution', 'api_error', [response.error]);
      const { blocks } = response;
      stopReason = response.stopReason;
      history.push({ role: 'assistant', content: blocks.length ? blocks : [{ type: 'text', text: '' }] });

      const uses = blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      if (uses.length === 0) {
        const text = blocks.filter((b) => b.type === 'text').map((b) => b.text).join('');
        const stop = await stopHook(ctx, text, stopHookContinuations, run.signal);
        if (stop.stop) return end('error_during_execution', 'hook_stopped', [`Stopped by a hook: ${stop.stop}`], text);
        if (stop.continueWith === undefined) return end('success', 'completed', [], text);
        // A Stop hook blocked the ending: the model goes on with the hook's reason (bounded).
        stopHookContinuations++;
        const note = `Stop hook feedback: ${stop.continueWith}`;
        history.push({ role: 'user', content: [{ type: 'text', text: note }] });
        await ctx.emit({
          type: 'user', message: { role: 'user', content: [{ type: 'text', text: note }] }, parent_tool_use_id: ctx.parentToolUseId,
          session_id: ctx.sessionId, uuid: newUuid(), timestamp: new Date().toISOString(), isSynthetic: true,
        });
        continue;
      }
      const results: UserContentBlock[] = [];
      let interruptedByAnswer = false;
      let hookStop: string | undefined;
      for (const use of uses) {
        if (run.signal.aborted) {
          results.push({ type: 'tool_result', tool_use_id: use.id, content: INTERRUPTED_TOOLS, is_error: true });
          continue;
        }
        if (hookStop !== undefined) {
          const block: UserContentBlock = { type: 'tool_result', tool_use_id: use.id, content: `Not run: a hook stopped the prompt (${hookStop})`, is_error: true };
          results.push(block);
          await ctx.emit({ type: 'user', message: { role: 'user', content: [block] }, parent_tool_use_id: ctx.parentToolUseId, session_id: ctx.sessionId, uuid: newUuid(), timestamp: new Date().toISOString() });
          continue;
        }
        const outcome = await runToolCall(ctx, use, run.signal, run);
        if (outcome.stop !== undefined) hookStop = outcome.stop;
        if (outcome.denied) run.denials.push({ tool_name: use.name, tool_use_id: use.id, tool_input: use.input, reason: outcome.denied.reason });
        results.push(outcome.block);
        await ctx.emit({
          type: 'user', message: { role: 'user', content: [outcome.block] }, parent_tool_use_id: ctx.parentToolUseId,
          session_id: ctx.sessionId, uuid: newUuid(), timestamp: new Date().toISOString(),
          ...(outcome.data !== undefined ? { tool_use_result: outcome.data } : {}),
        });
        if (outcome.interrupt) {
          interruptedByAnswer = true;
          run.interrupt();
        }
      }
      history.push({ role: 'user', content: results });
      if (hookStop !== undefined) return end('error_during_execution', 'hook_stopped', [`Stopped by a hook: ${hookStop}`]);
      if (run.signal.aborted || interruptedByAnswer) return await interrupted(ctx, history, INTERRUPTED_TOOLS, end, 'aborted_tools');
    }
  } catch (error) {
    if (run.signal.aborted) return await interrupted(ctx, history, INTERRUPTED, end, 'aborted_streaming');
    return end('error_during_execution', 'model_error', [error instanceof Error ? error.message : String(error)]);
  }
}

/** Records and announces an interruption, as the real CLI does. */
async function interrupted(
  ctx: AgentContext, history: MessageParam[], text: string,
  end: (s: LoopOutcome['subtype'], r: TerminalReason, e: string[]) => LoopOutcome, reason: TerminalReason,
): Promise<LoopOutcome> {
  history.push({ role: 'user', content: [{ type: 'text', text }] });
  await ctx.emit({
    type: 'user', message: { role: 'user', content: [{ type: 'text', text }] }, parent_tool_use_id: ctx.parentToolUseId,
    session_id: ctx.sessionId, uuid: newUuid(), timestamp: new Date().toISOString(),
  });
  return end('error_during_execution', reason, [text]);
}

type Response =
  | { kind: 'ok'; blocks: AssistantContentBlock[]; stopReason: string | null }
  | { kind: 'aborted' }
  | { kind: 'failed'; error: string };

/** One model request, retried on 429/5xx/cut connections while nothing was streamed yet. */
async function requestWithRetry(ctx: AgentContext, history: MessageParam[], run: RunState): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const assembler = new MessageAssembler();
    const started = Date.now();
    try {
      await streamOnce(ctx, history, run, assembler);
      run.usage.apiDurationMs += Date.now() - started;
      return { kind: 'ok', blocks: assembler.finished, stopReason: assembler.message?.stop_reason ?? null };
    } catch (error) {
      run.usage.apiDurationMs += Date.now() - started;
      if (run.signal.aborted) return { kind: 'aborted' };
      const modelError = ModelError.isInstance(error) ? error : undefined;
      const message = error instanceof Error ? error.message : String(error);
      if (!modelError?.retryable || assembler.started || attempt >= ctx.maxRetries) {
        if (!assembler.started && await fallBack(ctx, modelError)) {
          attempt = -1; // the fallback model gets its own retries
          continue;
        }
        await ctx.emit(apiErrorMessage(ctx, modelError, message, assembler));
        return { kind: 'failed', error: `API Error: ${message}` };
      }
      const delay = Math.min(modelError.retryAfterMs ?? 500 * 2 ** attempt, 30_000);
      ctx.debug?.('api', `retry ${attempt + 1}/${ctx.maxRetries} in ${delay} ms after ${modelError.kind}${modelError.status ? ` (status ${modelError.status})` : ''}`);
      await ctx.emit({
        type: 'system', subtype: 'api_retry', attempt: attempt + 1, max_retries: ctx.maxRetries, retry_delay_ms: delay,
        error_status: modelError.status ?? null,
        error: modelError.kind === 'rate_limit' || modelError.kind === 'overloaded' || modelError.kind === 'server_error' ? modelError.kind : 'unknown',
        uuid: newUuid(), session_id: ctx.sessionId,
      });
      try {
        await sleep(delay, undefined, { signal: run.signal });
      } catch {
        return { kind: 'aborted' };
      }
    }
  }
}

async function streamOnce(ctx: AgentContext, history: MessageParam[], run: RunState, assembler: MessageAssembler): Promise<void> {
  const model = ctx.model;
  const messages = mergeConsecutive(history);
  ctx.debug?.('api', `request: model ${model}, ${messages.length} messages, tools [${ctx.tools.map((t) => t.name).join(', ')}]` +
    `${ctx.effort ? `, effort ${ctx.effort}` : ''}${ctx.thinking ? `, thinking ${ctx.thinking.type}` : ''}${ctx.agent ? `, agent ${ctx.agent.type}` : ''}`);
  // This request's own signal: the run's interrupt, or a stall of this stream.
  const request = new AbortController();
  const stopRequest = () => request.abort(run.signal.reason);
  run.signal.addEventListener('abort', stopRequest, { once: true });
  if (run.signal.aborted) stopRequest();
  const stream = watchStalls(ctx.provider.stream(modelRequest(ctx, messages, request.signal, model)), request);
  // One `assistant` message per finished block. The latest one waits for what comes next: a new
  // block sends it as it is; `message_delta` first completes it with the request's final usage
  // and stop reason, so the last block of every request reports them live.
  let held: AssistantContentBlock | undefined;
  const flush = async () => {
    if (!held || !assembler.message) return;
    const { content: _, ...rest } = assembler.message;
    const message: AssistantMessage = {
      type: 'assistant', message: { ...rest, content: [held], usage: { ...rest.usage } },
      parent_tool_use_id: ctx.parentToolUseId, session_id: ctx.sessionId, uuid: newUuid(),
    };
    held = undefined;
    await ctx.emit(message);
  };
  try {
    for await (const event of stream) {
      if (ctx.includePartialMessages) {
        await ctx.emit({ type: 'stream_event', event, parent_tool_use_id: ctx.parentToolUseId, session_id: ctx.sessionId, uuid: newUuid() });
      }
      if (event.type === 'content_block_start') await flush();
      const block = assembler.add(event);
      if (block) held = block;
      if (event.type === 'message_delta' || event.type === 'message_stop') await flush();
      if (event.type === 'message_stop') break;
    }
  } finally {
    run.signal.removeEventListener('abort', stopRequest);
    await flush();
  }
  run.signal.throwIfAborted();
  const message = assembler.message;
  if (!message) throw new ModelError({ message: 'the model stream ended before message_start', kind: 'connection' });
  run.usage.add(message.model || model, message.usage);
}

/** The synthetic assistant message Claude Code emits for a failed request. */
function apiErrorMessage(ctx: AgentContext, error: ModelError | undefined, text: string, assembler: MessageAssembler): AssistantMessage {
  const kind = error?.kind;
  const wireError: AssistantMessage['error'] =
    kind === 'authentication_failed' || kind === 'rate_limit' || kind === 'server_error' || kind === 'invalid_request' || kind === 'billing_error' || kind === 'overloaded' || kind === 'model_not_found'
      ? kind : 'unknown';
  return {
    type: 'assistant',
    message: {
      id: assembler.message?.id ?? `msg_error_${newUuid()}`, type: 'message', role: 'assistant', model: ctx.model,
      content: [{ type: 'text', text: `API Error: ${text}`, citations: null }], stop_reason: 'stop_sequence', stop_sequence: '',
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: null, inference_geo: null, iterations: null, output_tokens_details: null, server_tool_use: null, service_tier: null, speed: null, fallback_credit: null },
      container: null, context_management: null, diagnostics: null, stop_details: null,
    },
    parent_tool_use_id: ctx.parentToolUseId, session_id: ctx.sessionId, uuid: newUuid(), error: wireError,
  };
}

/**
 * The history as a model request carries it: consecutive messages of the same role joined (the
 * APIs require alternation) and wire-only fields (`citations: null`) left out.
 */
export function mergeConsecutive(history: MessageParam[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const original of history) {
    const message = typeof original.content === 'string' ? original
      : { ...original, content: original.content.map((b) => (b.type === 'text' && 'citations' in b ? { type: 'text' as const, text: b.text } : b)) };
    const last = out.at(-1);
    if (last && last.role === message.role) {
      const toBlocks = (c: MessageParam['content']) => (typeof c === 'string' ? [{ type: 'text' as const, text: c }] : c);
      out[out.length - 1] = { role: last.role, content: [...toBlocks(last.content), ...toBlocks(message.content)] };
    } else out.push(message);
  }
  return out;
}
