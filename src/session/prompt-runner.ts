/**
 * The prompts of a session, one at a time: each runs on agentpipe's own loop or on the wrapped agent (`harness`), or
 * goes on with a cut turn, and ends in exactly one `result` (see Session).
 */
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import { monotonicMs } from '../process/clock.ts';
import { emptySubagentStats } from '../agent/subagent-stats.ts';
import type { AgentMessage, PermissionDenial, ResultMessage, TextBlock, UserContentBlock } from '../messages/types.ts';
import type { InputUserMessage } from '../messages/control.ts';
import { newUuid } from '../messages/ids.ts';
import { promptEcho } from '../messages/user.ts';
import { runAgentLoop, type LoopResume, type RunState } from '../agent/loop.ts';
import { fireHook, userPromptSubmit } from '../agent/hooks.ts';
import { UsageTracker } from '../agent/usage.ts';
import { compactCommandOf, compactedOutcome, runCompactCommand } from '../agent/compact.ts';
import { runWithSchema, type StructuredOutcome } from '../agent/structured-output.ts';
import { requestMaxTokens } from '../agent/request.ts';
import { beginCheckpoint } from '../tools/checkpoints.ts';
import type { Harness } from '../harness/types.ts';
import type { ParentContext } from '../telemetry/types.ts';
import { mainAgentOf, type MainAgent } from './main-agent.ts';
import type { CutTurn } from './transcript-rebuild.ts';
import { harnessContinuation } from './continuation.ts';
import { resultMessage } from './result-message.ts';
import { harnessPermission } from './harness-permission.ts';
import type { Session } from './session.ts';

/** Runs a session's prompts; the session delegates `runPrompt`, `continueCutTurn`, `steer` and `interrupt` here. */
export class PromptRunner {
  readonly #session: Session;
  /** Results made so far (`result.result_index`). */
  #results = 0;
  /** `agent` to run the main thread as, until it was applied at the first prompt. */
  #mainAgent?: MainAgent;
  #started = false;
  readonly #maxStructuredRetries?: number;
  #abort?: AbortController;
  #running = false;
  /** Context for the model that waits for the running prompt to end (`addContext`). */
  readonly #pendingContext: TextBlock[][] = [];

  constructor(session: Session, mainAgent: MainAgent | undefined, maxStructuredRetries: number | undefined) {
    this.#session = session;
    this.#mainAgent = mainAgent;
    this.#maxStructuredRetries = maxStructuredRetries;
  }

  /** True while a prompt runs. */
  get running(): boolean {
    return this.#running;
  }

  /** Adds blocks to the history before the next prompt (now, or once the running prompt ended), and the transcript. */
  async addContext(blocks: TextBlock[]): Promise<void> {
    if (this.#running) this.#pendingContext.push(blocks);
    else await this.#joinContext(blocks);
  }

  async #joinContext(blocks: TextBlock[]): Promise<void> {
    this.#session.history.push({ role: 'user', content: blocks });
    await this.#session.transcript?.recordContext(blocks);
  }

  /**
   * Hands a user message to the wrapped agent's running prompt when it can steer (codex's turn/steer): its echo goes
   * on the stream and the running prompt's result covers it. False when nothing runs or the harness cannot steer: the
   * caller queues it as the next prompt.
   */
  async steer(input: InputUserMessage): Promise<boolean> {
    const harness = this.#session.harness;
    if (!this.#running || !harness?.steer) return false;
    if (!(await harness.steer(normalizeContent(input.message.content)))) return false;
    await this.#session.ctx.emit(
      promptEcho(input, this.#session.id, input.uuid ?? newUuid(), new Date().toISOString()),
    );
    return true;
  }

  /** Aborts the running prompt (model request, tools, child processes), with `reason` as the abort's reason. */
  interrupt(reason: unknown = new DOMException('Interrupted', 'AbortError')): void {
    this.#abort?.abort(reason);
  }

  /** Runs one prompt to its single `result`, which is emitted and returned. */
  runPrompt(input: InputUserMessage, signal?: AbortSignal): Promise<ResultMessage> {
    return this.#runTurn(
      (run) =>
        this.#session.harness ? this.#runHarness(this.#session.harness, input, run) : this.#runOwnLoop(input, run),
      signal,
      input,
    );
  }

  /**
   * Goes on with the turn the transcript ended in the middle of (`cutTurn`, a cluster takeover), and the prompt ends in
   * its one `result` (no prompt echo: the client had it from the run that was cut). On agentpipe's own loop the tool
   * calls of its last answer that have no result run, then the model carries on from the history (no `system/init`
   * either); a `/compact` compacts (or gives the result of the compaction it had recorded); a wrapped CLI resumes its
   * own session and is asked to go on (harnessContinuation), `input` (the cut prompt) repeated in case it had not
   * recorded it.
   */
  continueCutTurn(signal?: AbortSignal, input?: InputUserMessage): Promise<ResultMessage> {
    const cut = this.#session.takeCutTurn();
    if (!cut) throw new Error('no cut turn to continue');
    const harness = this.#session.harness;
    return this.#runTurn(
      (run) =>
        harness
          ? this.#runHarness(harness, input ?? { type: 'user', message: { role: 'user', content: '' } }, run, {
              continuation: harnessContinuation(input),
            })
          : this.#continueOwnLoop(cut, run),
      signal,
      input,
    );
  }

  /**
   * The trace context a prompt runs under: its own `_meta` (a streaming client's, a cluster front end's), else the
   * session's (TRACEPARENT, a cluster job's). The prompt line of the transcript keeps it, so a worker that takes a cut
   * turn over continues it in the same trace.
   */
  #traceOf(input: InputUserMessage | undefined): ParentContext | undefined {
    const meta = input?._meta;
    if (typeof meta?.traceparent !== 'string') return this.#session.traceParent;
    return {
      traceparent: meta.traceparent,
      ...(typeof meta.tracestate === 'string' ? { tracestate: meta.tracestate } : {}),
    };
  }

  /** Runs one turn's body to its single `result`, which is emitted and returned; `input` is its prompt. */
  async #runTurn(
    body: (run: RunState) => Promise<StructuredOutcome>,
    signal?: AbortSignal,
    input?: InputUserMessage,
  ): Promise<ResultMessage> {
    const started = Date.now();
    const startedAt = monotonicMs();
    const marks: NonNullable<RunState['marks']> = {};
    const abort = new AbortController();
    const onOuterAbort = () => abort.abort(signal?.reason);
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    this.#abort = abort;
    this.#running = true;
    const usage = new UsageTracker();
    const denials: PermissionDenial[] = [];
    let outcome: StructuredOutcome;
    const run: RunState = {
      signal: abort.signal,
      usage,
      denials,
      interrupt: () => abort.abort(),
      marks,
      subagents: emptySubagentStats(),
      ...(this.#session.ctx.includePartialMessages ? { begunMessageIds: [] } : {}),
    };
    const span = this.#session.telemetry?.prompt(
      {
        sessionId: this.#session.id,
        model: this.#session.ctx.model,
        name: 'agentpipe',
        provider: this.#session.harness?.name ?? this.#session.ctx.provider.provider,
        prompt: input?.message.content ?? '',
      },
      this.#traceOf(input),
    );
    this.#session.ctx.span = span;
    try {
      outcome = await body(run);
      if (marks.requestSent !== undefined) outcome.begunMessageIds ??= run.begunMessageIds;
    } catch (error) {
      // A prompt a UserPromptSubmit hook blocked ends as Claude Code ends it: a success whose result
      // is the notice (system/informational said it first), no turn taken.
      const blocked = PromptBlocked.isInstance(error);
      outcome = {
        subtype: blocked ? 'success' : 'error_during_execution',
        text: blocked ? errorMessage(error) : '',
        errors: blocked ? [] : [errorMessage(error)],
        numTurns: 0,
        turns: 0,
        stopReason: null,
        terminalReason: blocked ? 'hook_stopped' : 'model_error',
      };
    } finally {
      signal?.removeEventListener('abort', onOuterAbort);
      this.#abort = undefined;
      this.#running = false;
      this.#session.ctx.span = undefined;
      for (const blocks of this.#pendingContext.splice(0)) await this.#joinContext(blocks);
    }
    const since = (mark: number | undefined) => (mark ? Math.max(0, Math.round(mark - startedAt)) : undefined);
    outcome.timings ??= {
      ttft_ms: since(marks.firstAssistant),
      ttft_stream_ms: since(marks.firstEvent),
      time_to_request_ms: since(marks.requestSent),
      first_content_frame_ms: since(marks.firstContent),
    };
    const result = await this.#finish(outcome, usage, denials, started, run.subagents);
    span?.end({
      subtype: result.subtype,
      costUsd: usage.totalCostUsd,
      errors: outcome.errors,
      ...('result' in result ? { output: result.result } : {}),
    });
    return result;
  }

  /** One prompt on agentpipe's own loop (or a `/compact` command). */
  async #runOwnLoop(input: InputUserMessage, run: RunState): Promise<StructuredOutcome> {
    await this.#session.loadAgentFiles();
    if (this.#mainAgent) this.#applyMainAgent(this.#mainAgent);
    await this.#session.syncMcpTools(run.signal);
    if (!this.#started) await this.#sessionStart(run.signal);
    await this.#session.ctx.emit(this.#session.initMessage());
    const uuid = input.uuid ?? this.#session.tap?.promptUuid() ?? newUuid();
    this.#session.hooks.promptId = uuid;
    await this.#session.ctx.emit(promptEcho(input, this.#session.id, uuid, new Date().toISOString()));
    const compact = compactCommandOf(input.message.content);
    if (compact !== undefined) {
      await this.#session.transcript?.recordPrompt(uuid, normalizeContent(input.message.content), {
        command: 'compact',
        trace: this.#traceOf(input),
      });
      const outcome = await runCompactCommand(this.#session.ctx, this.#session.history, run, compact);
      this.#session.compactor.reset();
      return outcome;
    }
    beginCheckpoint(this.#session.ctx.toolState, uuid);
    const prompt = await userPromptSubmit(this.#session.ctx, normalizeContent(input.message.content), run.signal);
    if (prompt.blocked) throw new PromptBlocked(prompt.blocked);
    this.#session.history.push({ role: 'user', content: prompt.content });
    await this.#session.transcript?.recordPrompt(uuid, prompt.content, { trace: this.#traceOf(input) });
    return this.#runLoop(run);
  }

  /** The agent loop on the session's history (held to the output schema when there is one). */
  #runLoop(run: RunState, resume?: LoopResume): Promise<StructuredOutcome> {
    const { ctx, history, outputSchema } = this.#session;
    return outputSchema
      ? runWithSchema(ctx, history, run, outputSchema, this.#maxStructuredRetries, resume)
      : runAgentLoop(ctx, history, run, ctx.maxTurns, resume);
  }

  /** The rest of a cut turn on agentpipe's own loop (see continueCutTurn). */
  async #continueOwnLoop(cut: CutTurn, run: RunState): Promise<StructuredOutcome> {
    await this.#session.loadAgentFiles();
    if (this.#mainAgent) this.#applyMainAgent(this.#mainAgent);
    await this.#session.syncMcpTools(run.signal);
    if (cut.compact) {
      const { done, instructions } = cut.compact;
      if (done) return compactedOutcome(done.preTokens, done.postTokens, 0);
      const outcome = await runCompactCommand(this.#session.ctx, this.#session.history, run, instructions);
      this.#session.compactor.reset();
      return outcome;
    }
    // The answer was complete, only its result is missing.
    if (cut.answer !== undefined)
      return {
        subtype: 'success',
        text: cut.answer,
        errors: [],
        numTurns: 1,
        turns: 0,
        stopReason: 'end_turn',
        terminalReason: 'completed',
      };
    return this.#runLoop(run, { pendingUses: cut.pendingUses });
  }

  /** Emits the prompt's one `result`. */
  async #finish(
    outcome: StructuredOutcome,
    usage: UsageTracker,
    denials: PermissionDenial[],
    started: number,
    subagents = emptySubagentStats(),
  ): Promise<ResultMessage> {
    const result = resultMessage(outcome, usage, denials, Date.now() - started, subagents, {
      stats: this.#session.stats,
      sessionId: this.#session.id,
      provider: this.#session.ctx.provider.provider,
      maxTokensOf: (model) => requestMaxTokens(this.#session.ctx, model),
      resultIndex: this.#results++,
    });
    this.#session.stats.addPrompt(usage, result.duration_ms);
    this.#session.compactor.afterPrompt(usage);
    await this.#session.ctx.emit(result);
    return result;
  }

  /**
   * One prompt on the wrapped agent: it emits the messages, agentpipe records them; its permission
   * prompts go to the session's (`canUseTool`, `can_use_tool`), and are denied with none.
   */
  async #runHarness(
    harness: Harness,
    input: InputUserMessage,
    run: RunState,
    { continuation }: { continuation?: string } = {},
  ): Promise<StructuredOutcome> {
    const content = continuation ?? normalizeContent(input.message.content);
    const uuid = input.uuid ?? this.#session.tap?.promptUuid() ?? newUuid();
    // A cut turn going on (continuation) has its prompt line and echo from the run that was cut.
    if (continuation === undefined)
      await this.#session.transcript?.recordPrompt(uuid, content, { trace: this.#traceOf(input) });
    const { runHarness } = await import('../harness/index.ts');
    // The wrapped agent sends the prompt's system/init: its echo follows it, as on agentpipe's own loop.
    let echoed = continuation !== undefined;
    const emit = async (message: AgentMessage) => {
      await this.#session.ctx.emit(message);
      if (echoed || message.type !== 'system' || message.subtype !== 'init') return;
      echoed = true;
      await this.#session.ctx.emit(promptEcho(input, this.#session.id, uuid, new Date().toISOString()));
    };
    return runHarness(harness, {
      prompt: content,
      signal: run.signal,
      ...(this.#session.ctx.span ? { traceparent: this.#session.ctx.span.traceparent } : {}),
      usage: run.usage,
      emit,
      init: (fields) => ({
        ...this.#session.initMessage(),
        cwd: fields.cwd ?? this.#session.ctx.cwd,
        tools: fields.tools ?? [],
        mcp_servers: [],
        agents: [],
        model: fields.model ?? this.#session.ctx.model,
        permissionMode: fields.permissionMode ?? this.#session.ctx.permissions.mode,
        harness: harness.name,
        ...((fields.nativeSessionId ?? harness.nativeSessionId)
          ? { harness_session_id: fields.nativeSessionId ?? harness.nativeSessionId }
          : {}),
      }),
      askPermission: async (toolName, toolInput, toolUseId, signal, shown) => {
        const verdict = await harnessPermission(this.#session.ctx, toolName, toolInput, toolUseId, signal, shown);
        if (verdict.behavior === 'deny')
          run.denials.push({ tool_name: toolName, tool_use_id: toolUseId, tool_input: toolInput });
        return verdict;
      },
    });
  }

  /** Runs the main thread as the `agent` option's agent: its prompt, tools and model. Throws when it is not defined. */
  #applyMainAgent(pending: MainAgent): void {
    const applied = mainAgentOf(pending, this.#session.agents);
    this.#mainAgent = undefined;
    this.#session.ctx.system = applied.system;
    if (this.#session.outputSchema) this.#session.setOutputSchema(this.#session.outputSchema);
    if (applied.model) this.#session.ctx.model = applied.model;
    this.#session.restrictTools((name) => applied.allows(name));
  }

  /** SessionStart hooks, once, before the first prompt; their context joins the history. */
  async #sessionStart(signal: AbortSignal): Promise<void> {
    this.#started = true;
    const source = this.#session.resumed ? 'resume' : 'startup';
    const verdict = await fireHook(
      this.#session.ctx,
      'SessionStart',
      { source, model: this.#session.ctx.model },
      { signal, matchValue: source },
    );
    for (const text of verdict.additionalContext) {
      this.#session.history.push({ role: 'user', content: [{ type: 'text', text }] });
      await this.#session.transcript?.recordContext([{ type: 'text', text }]);
    }
  }
}

function normalizeContent(content: string | UserContentBlock[]): string | UserContentBlock[] {
  return typeof content === 'string' ? content : content.filter((b) => b && typeof b === 'object');
}

/** A UserPromptSubmit hook blocked the prompt. */
class PromptBlocked extends AgentpipeError {
  static override readonly errorName: string = 'PromptBlocked';
}
