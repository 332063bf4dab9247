/**
 * A session: the history, the agent context and the prompts run one after another. Each
 * prompt emits `system/init`, the conversation, and exactly one `result`, whatever happens.
 */
import { CAPABILITIES, FEATURES_OFF } from './initialize-state.ts';
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import { emptySubagentStats } from '../agent/subagent-stats.ts';
import { resultFields } from './result-fields.ts';
import { SessionStats } from './session-stats.ts';
import type { SettingSource, SettingsLayer, SettingsLayerSource } from './setting-sources.ts';
import path from 'node:path';
import { monotonicMs } from '../process/clock.ts';
import { whenAborted } from '../process/aborted.ts';
import type {
  AgentMessage,
  MessageParam,
  PermissionDenial,
  ResultMessage,
  SubagentStats,
  SystemInitMessage,
  UserContentBlock,
} from '../messages/types.ts';
import type { InputUserMessage } from '../messages/control.ts';
import { newUuid } from '../messages/ids.ts';
import { promptEcho } from '../messages/user.ts';
import type { AgentContext } from '../agent/context.ts';
import { runAgentLoop, type RunState } from '../agent/loop.ts';
import { fireHook, userPromptSubmit } from '../agent/hooks.ts';
import { GENERAL_PURPOSE, type AgentDefinition } from '../agent/subagent.ts';
import { createTaskTool } from '../agent/task-tool.ts';
import { unknownToolWarnings } from '../tools/hooks/settings-check.ts';
import { HookDispatcher } from '../tools/hooks/dispatcher.ts';
import { alwaysThinkingEnabled, sessionSettings } from './setting-sources.ts';
import { agentFilesLoader } from './agent-files.ts';
import { debugLogger } from './debug-log.ts';
import { parseFallbackModels } from '../agent/fallback.ts';
import { mainAgentOf, workingFoldersNote, type MainAgent } from './main-agent.ts';
import { systemPromptOf } from './system-prompt.ts';
import { UsageTracker } from '../agent/usage.ts';
import { builtinTools } from '../tools/builtin/index.ts';
import { McpManager } from '../tools/mcp/manager.ts';
import { ToolState } from '../tools/state.ts';
import { beginCheckpoint } from '../tools/checkpoints.ts';
import {
  checkPermission,
  formatRule,
  isWholeToolRule,
  parseRules,
  type PermissionRule,
  type PermissionVerdict,
} from '../tools/permissions.ts';
import type { PermissionResult } from '../messages/control.ts';
import type { Tool } from '../tools/types.ts';
import type { ModelProvider } from '../model/types.ts';
import type { Harness, PermissionPromptDetails } from '../harness/types.ts';
import { permissionPromptInfo } from '../tools/permission-prompt.ts';
import { COMPAT_CLAUDE_CODE_VERSION, VERSION } from '../version.ts';
import type { SessionOptions } from './options.ts';
import { keepsInTranscript, type Transcript } from './transcript.ts';
import type { CutTurn } from './transcript-rebuild.ts';
import { harnessContinuation } from './continuation.ts';
import { AutoCompactor } from '../agent/auto-compact.ts';
import { compactCommandOf, compactedOutcome, runCompactCommand } from '../agent/compact.ts';
import {
  runWithSchema,
  schemaInstruction,
  STRUCTURED_OUTPUT_TOOL,
  type StructuredOutcome,
} from '../agent/structured-output.ts';
import { envCount } from '../process/env-number.ts';
import { outcomePolicyFor } from '../agent/outcome-policy.ts';
import { closeSandbox, isSandboxMode, sandboxLayers, type SandboxConfig } from '../sandbox/config.ts';
import type { ParentContext, Telemetry } from '../telemetry/types.ts';

/**
 * Sees each message of the session's stream before the transcript and the client do, and the session's end: a tape
 * (`record`, `replay`; session/tape.ts).
 */
export interface SessionTap {
  /** The message as the stream carries it on (a replay gives it the recorded ids and clock values). */
  message(message: AgentMessage): AgentMessage;
  /** The uuid of a prompt that came without one (a replay: the recorded prompt's), or undefined. */
  promptUuid(): string | undefined;
  /** The session ended (its wrapped agent, hooks and MCP servers are done). */
  close(): Promise<void>;
}

/** Claude Code version we are wire-compatible with (reported in `system/init`). */

export class Session {
  readonly id: string;
  readonly ctx: AgentContext;
  readonly history: MessageParam[] = [];
  /** Totals over the whole session (`get_session_cost`, `get_usage`). */
  readonly stats = new SessionStats();
  /** The title the client gave (`rename_session`). */
  title?: string;
  /** The settings layers the session was started with (`get_settings`). */
  readonly settingsLayers: SettingsLayer[];
  /** Every permission rule with where it came from (`list_permission_rules`). */
  ruleEntries: Array<{ behavior: 'allow' | 'deny'; source: SettingsLayerSource | 'cliArg'; rule: string }> = [];
  /** The working folder the session started in. */
  readonly originalCwd: string;
  /** The settings sources that apply (`--setting-sources`, less an untrusted project's). */
  readonly settingSources: readonly SettingSource[];
  /** `allowedTools` / `disallowedTools`. */
  readonly #cliRules: { allow: string[]; deny: string[] };
  /** The model the session started with (`set_model` with no model returns to it). */
  readonly defaultModel: string;
  /** The MCP servers of the session (their tools join `ctx.tools` at each prompt). */
  readonly mcp: McpManager;
  #hideTool: (name: string) => boolean;
  /** Results made so far (`result.result_index`). */
  #results = 0;
  /** `agent` to run the main thread as, until it was applied at the first prompt. */
  #mainAgent?: MainAgent;
  /** Every hook of the session: settings commands, library callbacks, the SDK client's. */
  readonly hooks = new HookDispatcher();
  /** Subagents of the `Task` tool (empty until agents are defined). */
  readonly agents: Record<string, AgentDefinition> = {};
  #started = false;
  /** Reads the agent files of the allowed setting sources, once (`loadAgentFiles`). */
  readonly #agentFiles: () => Promise<void> | undefined;
  /** The transcript being written (absent with `persistSession: false`); set by `prepareSession`. */
  transcript?: Transcript;
  /** True when the history came from a transcript (SessionStart hooks then see `source: "resume"`). */
  resumed = false;
  /** The turn the transcript ended in the middle of (`continueCutTurn`), until `continueCutTurn()` goes on with it. */
  cutTurn?: CutTurn;
  /** JSON schema the final answer must match (`outputFormat`, `initialize.jsonSchema`). */
  outputSchema?: Record<string, unknown>;
  readonly compactor: AutoCompactor;
  readonly #maxStructuredRetries?: number;
  #abort?: AbortController;
  #running = false;
  /** The wrapped agent that runs the prompts instead of agentpipe's loop (`harness`); set by `openSession`. */
  harness?: Harness;
  /** A tape's view of the stream (`record`, `replay`); set by `openSession`. */
  tap?: SessionTap;
  /** Telemetry of the session's prompts (absent when off); set by `openSession`. */
  telemetry?: Telemetry;
  /** The parent of each prompt's span: TRACEPARENT from the caller, an ACP request's `_meta` (telemetry on). */
  traceParent?: ParentContext;
  /** Where the stream goes after the transcript (the constructor's `emit`). */
  readonly #forward: (m: AgentMessage) => Promise<void> | undefined;

  /**
   * `log` receives the session's diagnostics (warnings); the CLI's goes to stderr, the library's to the caller's
   * `stderr` option.
   */
  constructor(
    options: SessionOptions,
    provider: ModelProvider,
    model: string,
    emit: (m: AgentMessage) => Promise<void> | undefined,
    log: (line: string) => void = () => {},
  ) {
    this.id = options.sessionId ?? newUuid();
    this.defaultModel = model;
    const cwd = options.cwd ?? process.cwd();
    // The one door of every settings file; an untrusted project's files are named on the log and left out.
    const { layers: settings, sources } = sessionSettings(options, cwd, (line) => log(`agentpipe: warning: ${line}`));
    this.settingsLayers = settings;
    this.originalCwd = cwd;
    this.settingSources = sources;
    this.#cliRules = { allow: [...(options.allowedTools ?? [])], deny: [...(options.disallowedTools ?? [])] };
    const { allow, deny } = this.#rules();
    const directories = (options.additionalDirectories ?? []).map((dir) => path.resolve(cwd, dir));
    let tools: Tool[] = [...builtinTools(provider), ...(options.extraTools ?? [])];
    for (const line of unknownToolWarnings(settings, tools)) log(`agentpipe: warning: ${line}`);
    if (options.tools) tools = tools.filter((t) => options.tools!.includes(t.name) || t.name.startsWith('mcp__'));
    tools = tools.filter((t) => !deny.some((rule) => isWholeToolRule(rule, t.name)));
    // `tools` limits the built-in tools, the MCP resource tools among them.
    this.#hideTool = (name) =>
      deny.some((rule) => isWholeToolRule(rule, name)) ||
      (!!options.tools && !name.startsWith('mcp__') && !options.tools.includes(name));
    const sandbox = sessionSandbox(options, settings, cwd, directories, (line) => log(`agentpipe: warning: ${line}`));
    // The Read deny rules in force when a command starts: the sandbox hides their paths.
    sandbox.readDenied = () =>
      this.ctx.permissions.deny.flatMap((r) => (r.tool === 'Read' && r.specifier !== undefined ? [r.specifier] : []));
    this.mcp = new McpManager(options.mcpServers ?? {}, {
      cwd,
      sessionId: this.id,
      sandbox,
      emit: (m) => this.ctx.emit(m),
    });
    this.mcp.start();
    const policy = outcomePolicyFor(options.outcomePolicy, provider.provider);
    this.ctx = {
      provider,
      model,
      cwd,
      tools,
      system: systemPromptOf(options, cwd, directories),
      sessionId: this.id,
      parentToolUseId: null,
      maxTurns: options.maxTurns,
      maxBudgetUsd: options.maxBudgetUsd,
      // Claude Code 2.1.332 asks Claude for 32,000 tokens (claude-sonnet-4-6); other providers' models get 16,384.
      maxTokens: options.maxTokens ?? (provider.provider === 'anthropic' ? 32_000 : 16_384),
      thinkingBudgetTokens: options.maxThinkingTokens,
      thinking: options.thinking,
      effort: options.effort,
      betas: options.betas,
      claudeRequest: { alwaysThinkingEnabled: alwaysThinkingEnabled(settings), env: options.env ?? process.env },
      fallbackModels: parseFallbackModels(options.fallbackModel),
      debug: debugLogger(options, cwd, log),
      warn: (line) => log(`agentpipe: warning: ${line}`),
      permissions: {
        mode: options.permissionMode ?? 'default',
        allow,
        deny,
        directories,
      },
      canUseTool: options.canUseTool,
      hooks: this.hooks,
      includePartialMessages: options.includePartialMessages ?? false,
      toolState: new ToolState(),
      progressThresholdMs: options.toolProgressThresholdMs ?? 1000,
      progressIntervalMs: options.toolProgressIntervalMs ?? 1000,
      // CLAUDE_CODE_MAX_RETRIES as Claude Code reads it (the SDK passes it in `env`).
      maxRetries:
        options.maxRetries ??
        envCount('CLAUDE_CODE_MAX_RETRIES', policy.retries.defaultMaxRetries, options.env ?? process.env),
      policy,
      emit: (message) => this.emit(message),
      ...(options.runGuard ? { guard: options.runGuard } : {}),
    };
    this.#forward = emit;
    this.compactor = new AutoCompactor(this.history, options.maxContextTokens);
    this.ctx.compaction = this.compactor;
    this.#maxStructuredRetries = options.maxStructuredOutputRetries;
    if (options.outputFormat?.type === 'json_schema') this.setOutputSchema(options.outputFormat.schema);
    this.ctx.sandbox = sandbox;
    this.hooks.sandbox = sandbox;
    this.hooks.transcriptPath = () => this.transcript?.file ?? '';
    for (const layer of settings) this.hooks.addSettings(layer.hooks, layer.source);
    if (options.agent)
      this.#mainAgent = { name: options.agent, appendSystemPrompt: options.appendSystemPrompt, directories };
    if (options.hooks) this.hooks.addCallbacks(options.hooks);
    this.hooks.announce = options.includeHookEvents === true;
    // Every hook is an event of the prompt's span, whether or not its response is in the stream.
    this.hooks.observe = (response) =>
      this.ctx.span?.event('hook', {
        'agentpipe.hook.event': response.hook_event,
        'agentpipe.hook.name': response.hook_name,
        'agentpipe.hook.outcome': response.outcome,
        ...(response.exit_code !== undefined ? { 'agentpipe.hook.exit_code': response.exit_code } : {}),
      });
    // Task with the general-purpose agent is always there, as in Claude Code (unless denied or left out of `tools`).
    const hideTask = this.#hideTool('Task');
    this.defineAgents(options.agents ?? {}, hideTask);
    this.#agentFiles = agentFilesLoader(
      sources,
      cwd,
      this.agents,
      (fresh) => this.defineAgents(fresh, hideTask),
      this.ctx.warn,
    );
  }

  /** Adds subagents (and 'general-purpose'); the `Task` tool comes first in the tool list, as in Claude Code. */
  defineAgents(agents: Record<string, AgentDefinition>, hideTask = this.#hideTool('Task')): void {
    Object.assign(
      this.agents,
      Object.hasOwn(this.agents, 'general-purpose') ? {} : { 'general-purpose': GENERAL_PURPOSE },
      agents,
    );
    if (!hideTask && !this.ctx.tools.some((t) => t.name === 'Task'))
      this.ctx.tools.unshift(createTaskTool(() => this.agents));
  }

  /**
   * Adds the agents of the agent files (`.agentpipe/agents/*.md`, per setting source), once; never throws. Undefined
   * when there are none.
   */
  loadAgentFiles(): Promise<void> | undefined {
    return this.#agentFiles();
  }

  /** Requires the final answer to be JSON valid against `schema` (the model is told so in the system prompt). */
  setOutputSchema(schema: Record<string, unknown>): void {
    this.outputSchema = schema;
    this.ctx.system = `${this.ctx.system}${this.ctx.system ? '\n\n' : ''}${schemaInstruction(schema)}`;
  }

  /**
   * The session's one emit: every message of its stream (the agent loop's, the prompt echoes,
   * `auth_status`) goes through here, is counted, written to the transcript (what a transcript
   * keeps: see Transcript.record) and then sent on.
   */
  emit(message: AgentMessage): Promise<void> | undefined {
    if (this.tap) message = this.tap.message(message);
    if (this.telemetry) this.#observeForTelemetry(this.telemetry, message);
    else this.stats.observe(message);
    // Deltas and progress are not recorded: they go on without a promise (the delta path's hot loop).
    if (!this.transcript || !keepsInTranscript(message)) return this.#forward(message);
    return this.#record(message).then(() => this.#forward(message));
  }

  /**
   * Counts a message in the stats, and projects onto the telemetry what the stream alone tells: the lines an edit
   * changed, and compactions as events of the prompt's span (hooks: `hooks.observe`).
   */
  #observeForTelemetry(telemetry: Telemetry, message: AgentMessage): void {
    const { linesAdded, linesRemoved } = this.stats;
    this.stats.observe(message);
    if (this.stats.linesAdded !== linesAdded || this.stats.linesRemoved !== linesRemoved)
      telemetry.linesChanged(this.stats.linesAdded - linesAdded, this.stats.linesRemoved - linesRemoved);
    if (message.type !== 'system') return;
    if (message.subtype === 'compact_boundary')
      this.ctx.span?.event('compaction', {
        'agentpipe.compaction.trigger': message.compact_metadata.trigger,
        'agentpipe.compaction.pre_tokens': message.compact_metadata.pre_tokens,
      });
  }

  /** Writes a message to the transcript; a compaction also records the new history. */
  async #record(message: AgentMessage): Promise<void> {
    if (!this.transcript) return;
    await this.transcript.record(message);
    if (message.type === 'system' && message.subtype === 'compact_boundary')
      await this.transcript.snapshot('compact', this.history);
  }

  /** True while a prompt runs. */
  get running(): boolean {
    return this.#running;
  }

  /** The `system/init` message for the next prompt. */
  initMessage(): SystemInitMessage {
    const ctx = this.ctx;
    return {
      type: 'system',
      subtype: 'init',
      cwd: ctx.cwd,
      session_id: this.id,
      tools: withStructuredOutput(
        ctx.tools.map((t) => t.name),
        this.outputSchema !== undefined,
      ),
      mcp_servers: this.mcp.statusList(),
      model: ctx.model,
      permissionMode: ctx.permissions.mode,
      slash_commands: [],
      apiKeySource: ctx.provider.apiKeySource,
      claude_code_version: COMPAT_CLAUDE_CODE_VERSION,
      agentpipe_version: VERSION,
      output_style: 'default',
      agents: Object.keys(this.agents),
      skills: [],
      plugins: [],
      ...(ctx.effort ? { effort: ctx.effort } : {}),
      ...(ctx.betas?.length ? { betas: ctx.betas } : {}),
      capabilities: CAPABILITIES,
      // What Claude Code sends while these features are off (agentpipe has no fast mode, analytics or
      // feedback surveys); it sends `memory_paths` only with its auto memory, which agentpipe does not have.
      ...FEATURES_OFF,
      product_feedback_disabled: true,
      served_by_anthropic: ctx.provider.servedByAnthropic ?? false,
      sandbox_enabled: false,
      original_cwd: ctx.cwd,
      additional_directories: ctx.permissions.directories ?? [],
      per_turn_effort_active: false,
      ultrathink_available: false,
      ultrathink_typed_raises: false,
      view_mode: 'default',
      uuid: newUuid(),
    };
  }

  /**
   * Hands a user message to the wrapped agent's running prompt when it can steer (codex's turn/steer): its echo goes
   * on the stream and the running prompt's result covers it. False when nothing runs or the harness cannot steer: the
   * caller queues it as the next prompt.
   */
  async steer(input: InputUserMessage): Promise<boolean> {
    const harness = this.harness;
    if (!this.#running || !harness?.steer) return false;
    if (!(await harness.steer(normalizeContent(input.message.content)))) return false;
    await this.ctx.emit(promptEcho(input, this.id, input.uuid ?? newUuid(), new Date().toISOString()));
    return true;
  }

  /** Aborts the running prompt (model request, tools, child processes), with `reason` as the abort's reason. */
  interrupt(reason: unknown = new DOMException('Interrupted', 'AbortError')): void {
    this.#abort?.abort(reason);
  }

  /** Runs one prompt to its single `result`, which is emitted and returned. */
  runPrompt(input: InputUserMessage, signal?: AbortSignal): Promise<ResultMessage> {
    return this.#runTurn(
      (run) => (this.harness ? this.#runHarness(this.harness, input, run) : this.#runOwnLoop(input, run)),
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
    const cut = this.cutTurn;
    this.cutTurn = undefined;
    if (!cut) throw new Error('no cut turn to continue');
    const harness = this.harness;
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
    if (typeof meta?.traceparent !== 'string') return this.traceParent;
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
      ...(this.ctx.includePartialMessages ? { begunMessageIds: [] } : {}),
    };
    const span = this.telemetry?.prompt(
      {
        sessionId: this.id,
        model: this.ctx.model,
        name: 'agentpipe',
        provider: this.harness?.name ?? this.ctx.provider.provider,
        prompt: input?.message.content ?? '',
      },
      this.#traceOf(input),
    );
    this.ctx.span = span;
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
        requests: 0,
        stopReason: null,
        terminalReason: blocked ? 'hook_stopped' : 'model_error',
      };
    } finally {
      signal?.removeEventListener('abort', onOuterAbort);
      this.#abort = undefined;
      this.#running = false;
      this.ctx.span = undefined;
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
    await this.loadAgentFiles();
    if (this.#mainAgent) this.#applyMainAgent(this.#mainAgent);
    await this.#syncMcpTools(run.signal);
    if (!this.#started) await this.#sessionStart(run.signal);
    await this.ctx.emit(this.initMessage());
    const uuid = input.uuid ?? this.tap?.promptUuid() ?? newUuid();
    this.hooks.promptId = uuid;
    await this.ctx.emit(promptEcho(input, this.id, uuid, new Date().toISOString()));
    const compact = compactCommandOf(input.message.content);
    if (compact !== undefined) {
      await this.transcript?.recordPrompt(uuid, normalizeContent(input.message.content), {
        command: 'compact',
        trace: this.#traceOf(input),
      });
      const outcome = await runCompactCommand(this.ctx, this.history, run, compact);
      this.compactor.reset();
      return outcome;
    }
    beginCheckpoint(this.ctx.toolState, uuid);
    const prompt = await userPromptSubmit(this.ctx, normalizeContent(input.message.content), run.signal);
    if (prompt.blocked) throw new PromptBlocked(prompt.blocked);
    this.history.push({ role: 'user', content: prompt.content });
    await this.transcript?.recordPrompt(uuid, prompt.content, { trace: this.#traceOf(input) });
    return this.outputSchema
      ? await runWithSchema(this.ctx, this.history, run, this.outputSchema, this.#maxStructuredRetries)
      : await runAgentLoop(this.ctx, this.history, run);
  }

  /** The rest of a cut turn on agentpipe's own loop (see continueCutTurn). */
  async #continueOwnLoop(cut: CutTurn, run: RunState): Promise<StructuredOutcome> {
    await this.loadAgentFiles();
    if (this.#mainAgent) this.#applyMainAgent(this.#mainAgent);
    await this.#syncMcpTools(run.signal);
    if (cut.compact) {
      const { done, instructions } = cut.compact;
      if (done) return compactedOutcome(done.preTokens, done.postTokens, 0);
      const outcome = await runCompactCommand(this.ctx, this.history, run, instructions);
      this.compactor.reset();
      return outcome;
    }
    // The answer was complete, only its result is missing.
    if (cut.answer !== undefined)
      return {
        subtype: 'success',
        text: cut.answer,
        errors: [],
        numTurns: 1,
        requests: 0,
        stopReason: 'end_turn',
        terminalReason: 'completed',
      };
    const resume = { pendingUses: cut.pendingUses };
    return this.outputSchema
      ? await runWithSchema(this.ctx, this.history, run, this.outputSchema, this.#maxStructuredRetries, resume)
      : await runAgentLoop(this.ctx, this.history, run, this.ctx.maxTurns, resume);
  }

  /** Emits the prompt's one `result`. */
  async #finish(
    outcome: StructuredOutcome,
    usage: UsageTracker,
    denials: PermissionDenial[],
    started: number,
    subagents = emptySubagentStats(),
  ): Promise<ResultMessage> {
    const result = this.#result(outcome, usage, denials, Date.now() - started, subagents);
    this.stats.addPrompt(usage, result.duration_ms);
    this.compactor.afterPrompt(usage);
    await this.ctx.emit(result);
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
    const uuid = input.uuid ?? this.tap?.promptUuid() ?? newUuid();
    // A cut turn going on (continuation) has its prompt line and echo from the run that was cut.
    if (continuation === undefined) await this.transcript?.recordPrompt(uuid, content, { trace: this.#traceOf(input) });
    const { runHarness } = await import('../harness/index.ts');
    // The wrapped agent sends the prompt's system/init: its echo follows it, as on agentpipe's own loop.
    let echoed = continuation !== undefined;
    const emit = async (message: AgentMessage) => {
      await this.ctx.emit(message);
      if (echoed || message.type !== 'system' || message.subtype !== 'init') return;
      echoed = true;
      await this.ctx.emit(promptEcho(input, this.id, uuid, new Date().toISOString()));
    };
    return runHarness(harness, {
      prompt: content,
      signal: run.signal,
      ...(this.ctx.span ? { traceparent: this.ctx.span.traceparent } : {}),
      usage: run.usage,
      emit,
      init: (fields) => ({
        ...this.initMessage(),
        cwd: fields.cwd ?? this.ctx.cwd,
        tools: fields.tools ?? [],
        mcp_servers: [],
        agents: [],
        model: fields.model ?? this.ctx.model,
        permissionMode: fields.permissionMode ?? this.ctx.permissions.mode,
        harness: harness.name,
        ...((fields.nativeSessionId ?? harness.nativeSessionId)
          ? { harness_session_id: fields.nativeSessionId ?? harness.nativeSessionId }
          : {}),
      }),
      askPermission: async (toolName, toolInput, toolUseId, signal, shown) => {
        const verdict = await this.#harnessPermission(toolName, toolInput, toolUseId, signal, shown);
        if (verdict.behavior === 'deny')
          run.denials.push({ tool_name: toolName, tool_use_id: toolUseId, tool_input: toolInput });
        return verdict;
      },
    });
  }

  /**
   * A wrapped agent's permission question, decided as agentpipe decides its own calls: the
   * session's rules and mode first (a deny rule wins over the wrapped agent's own settings), on
   * the parsed command and resolved paths for the tools agentpipe knows; what is left open goes to
   * the permission prompt (`canUseTool`, `can_use_tool`), and is denied without one.
   */
  async #harnessPermission(
    toolName: string,
    input: Record<string, unknown>,
    toolUseId: string,
    signal: AbortSignal,
    shown?: PermissionPromptDetails,
  ): Promise<PermissionResult> {
    const p = this.ctx.permissions;
    const tool = this.ctx.tools.find((t) => t.name === toolName);
    let verdict: PermissionVerdict;
    if (tool)
      verdict = await checkPermission({
        tool,
        input,
        mode: p.mode,
        allow: p.allow,
        deny: p.deny,
        cwd: this.ctx.cwd,
        directories: p.directories,
      });
    else if (p.deny.some((rule) => isWholeToolRule(rule, toolName)))
      verdict = { behavior: 'deny', reason: `${toolName} is denied by a rule`, by: 'rule' };
    else if (p.mode === 'bypassPermissions' || p.allow.some((rule) => isWholeToolRule(rule, toolName)))
      verdict = { behavior: 'allow', sandbox: 'workspace' };
    else verdict = { behavior: 'ask', reason: `${toolName} needs permission` };
    if (verdict.behavior === 'allow') return { behavior: 'allow' };
    if (verdict.behavior === 'deny') return { behavior: 'deny', message: verdict.reason };
    const ask = p.mode === 'dontAsk' ? undefined : this.ctx.canUseTool;
    if (!ask)
      return {
        behavior: 'deny',
        message:
          `${toolName} needs permission and there is no permission prompt ` +
          `(canUseTool, --permission-prompt-tool stdio)`,
      };
    // The wrapped agent's own prompt details (Claude Code sends them), else agentpipe's for the call.
    const { suggestions, ...details } =
      shown ?? (await permissionPromptInfo(toolName, input, this.ctx.cwd, p.directories));
    return ask(toolName, input, {
      signal,
      toolUseId,
      suggestions: suggestions ?? [],
      parentToolUseId: null,
      ...details,
    });
  }

  /** Runs the main thread as the `agent` option's agent: its prompt, tools and model. Throws when it is not defined. */
  #applyMainAgent(pending: MainAgent): void {
    const applied = mainAgentOf(pending, this.agents);
    this.#mainAgent = undefined;
    this.ctx.system = applied.system;
    if (this.outputSchema) this.setOutputSchema(this.outputSchema);
    if (applied.model) this.ctx.model = applied.model;
    const hidden = this.#hideTool;
    this.#hideTool = (name) => hidden(name) || !applied.allows(name);
    this.ctx.tools = this.ctx.tools.filter((t) => applied.allows(t.name));
  }

  /** The rules of the flags and of every settings layer; fills `ruleEntries`. */
  #rules(): { allow: PermissionRule[]; deny: PermissionRule[] } {
    this.ruleEntries = [];
    const out = { allow: [] as PermissionRule[], deny: [] as PermissionRule[] };
    const sources = [{ source: 'cliArg' as const, permissions: this.#cliRules }, ...this.settingsLayers];
    for (const { source, permissions } of sources) {
      for (const behavior of ['allow', 'deny'] as const) {
        for (const rule of parseRules(permissions[behavior])) {
          out[behavior].push(rule);
          this.ruleEntries.push({ behavior, source, rule: formatRule(rule) });
        }
      }
    }
    return out;
  }

  /**
   * Replaces the flag settings layer (`apply_flag_settings`): its permission rules and hooks
   * take effect for the next tool call.
   */
  setFlagLayer(layer: SettingsLayer): void {
    const at = this.settingsLayers.findIndex((l) => l.source === 'flagSettings');
    if (at >= 0) this.settingsLayers[at] = layer;
    else this.settingsLayers.push(layer);
    const { allow, deny } = this.#rules();
    this.ctx.permissions.allow = allow;
    this.ctx.permissions.deny = deny;
    this.hooks.removeSource('flagSettings');
    this.hooks.addSettings(layer.hooks, 'flagSettings');
  }

  /** Adds deny rules as `--disallowedTools` does (initialize's `disallowedTools`): a bare tool name hides the tool. */
  denyTools(rules: string[]): void {
    this.#cliRules.deny.push(...rules);
    const { allow, deny } = this.#rules();
    this.ctx.permissions.allow = allow;
    this.ctx.permissions.deny = deny;
    const hidden = this.#hideTool;
    this.#hideTool = (name) => hidden(name) || deny.some((rule) => isWholeToolRule(rule, name));
    this.ctx.tools = this.ctx.tools.filter((t) => !this.#hideTool(t.name));
  }

  /** Adds a folder the model may work in (`register_repo_root`, as `--add-dir`). */
  addDirectory(dir: string): void {
    const directories = (this.ctx.permissions.directories ??= []);
    if (directories.includes(dir)) return;
    directories.push(dir);
    this.ctx.system = `${this.ctx.system}${this.ctx.system ? '\n\n' : ''}${workingFoldersNote([dir])}`;
  }

  /** The system prompt with the session's notes (extra working folders), after a client replaced it. */
  withNotes(system: string): string {
    const note = workingFoldersNote(this.ctx.permissions.directories ?? []);
    return note ? `${system}${system ? '\n\n' : ''}${note}` : system;
  }

  /**
   * Waits for MCP servers still connecting (an interrupt ends the wait: the loop then ends the prompt as interrupted),
   * then puts their current tools in `ctx.tools`.
   */
  async #syncMcpTools(signal: AbortSignal): Promise<void> {
    if (this.mcp.size === 0) return;
    await Promise.race([this.mcp.ready(), whenAborted(signal)]);
    const mcpTools = this.mcp.tools().filter((t) => !this.#hideTool(t.name));
    this.ctx.tools = [...this.ctx.tools.filter((t) => !this.mcp.owns(t)), ...mcpTools];
  }

  /** SessionStart hooks, once, before the first prompt; their context joins the history. */
  async #sessionStart(signal: AbortSignal): Promise<void> {
    this.#started = true;
    const source = this.resumed ? 'resume' : 'startup';
    const verdict = await fireHook(
      this.ctx,
      'SessionStart',
      { source, model: this.ctx.model },
      { signal, matchValue: source },
    );
    for (const text of verdict.additionalContext) {
      this.history.push({ role: 'user', content: [{ type: 'text', text }] });
      await this.transcript?.recordContext([{ type: 'text', text }]);
    }
  }

  /** Ends the session: SessionEnd hooks, then stops the MCP servers and the sandbox's egress proxies. */
  async close(): Promise<void> {
    this.interrupt();
    await this.harness?.close();
    await fireHook(this.ctx, 'SessionEnd', { reason: 'other' }, { signal: new AbortController().signal });
    await this.mcp.close();
    closeSandbox(this.ctx.sandbox);
    await this.transcript?.close();
    await this.tap?.close();
    await this.telemetry?.flush();
  }

  #result(
    outcome: StructuredOutcome,
    usage: UsageTracker,
    denials: PermissionDenial[],
    durationMs: number,
    subagents: SubagentStats,
  ): ResultMessage {
    const subtype = outcome.subtype;
    const apiError = outcome.apiError;
    const totals = this.stats.totals(usage);
    const base = {
      type: 'result' as const,
      subtype,
      is_error: subtype !== 'success',
      duration_ms: durationMs,
      duration_api_ms: usage.apiDurationMs,
      num_turns: outcome.numTurns,
      stop_reason: outcome.stopReason,
      session_id: this.id,
      total_cost_usd: totals.totalCostUsd,
      usage: usage.usage,
      permission_denials: denials,
      terminal_reason: apiError?.terminalReason ?? outcome.terminalReason,
      // No fast mode here: 'off', as Claude Code reports it while its fast mode is off.
      fast_mode_state: 'off' as const,
      ...resultFields({
        modelUsage: totals.modelUsage,
        sinceLastResult: usage.modelUsage,
        provider: this.ctx.provider.provider,
        maxTokens: this.ctx.maxTokens,
        resultIndex: this.#results++,
        subagents,
      }),
      ...(outcome.begunMessageIds ? { begun_message_ids: outcome.begunMessageIds } : {}),
      uuid: newUuid(),
    };
    // A model request that failed for good ends as in Claude Code: a success carrying the error's text.
    if (apiError)
      return {
        ...base,
        subtype: 'success',
        is_error: true,
        api_error_status: apiError.status,
        ...(apiError.type ? { api_error_type: apiError.type } : {}),
        result: apiError.text,
      };
    if (subtype === 'success' && outcome.terminalReason === 'hook_stopped') {
      // A prompt a UserPromptSubmit hook blocked: Claude Code 2.1.332's result has no terminal_reason, no API status.
      const { terminal_reason: _none, ...rest } = base;
      return { ...rest, subtype, is_error: false, result: outcome.text };
    }
    if (subtype === 'success') {
      const timings = Object.entries(outcome.timings ?? {}).filter(([, ms]) => ms !== undefined);
      return {
        ...base,
        subtype,
        is_error: false,
        api_error_status: null,
        ...Object.fromEntries(timings),
        result: outcome.text,
        ...(outcome.structuredOutput !== undefined ? { structured_output: outcome.structuredOutput } : {}),
      };
    }
    return { ...base, subtype, is_error: true, errors: outcome.errors };
  }
}

function normalizeContent(content: string | UserContentBlock[]): string | UserContentBlock[] {
  return typeof content === 'string' ? content : content.filter((b) => b && typeof b === 'object');
}

/**
 * The tool names of system/init: with a schema, StructuredOutput among them (in name order after Task), as Claude Code
 * lists it.
 */
function withStructuredOutput(names: string[], schema: boolean): string[] {
  if (!schema || names.includes(STRUCTURED_OUTPUT_TOOL)) return names;
  const at = names.findIndex((name, i) => i > 0 && name.localeCompare(STRUCTURED_OUTPUT_TOOL) > 0);
  return at === -1
    ? [...names, STRUCTURED_OUTPUT_TOOL]
    : [...names.slice(0, at), STRUCTURED_OUTPUT_TOOL, ...names.slice(at)];
}

/** A UserPromptSubmit hook blocked the prompt. */
class PromptBlocked extends AgentpipeError {
  static override readonly errorName: string = 'PromptBlocked';
}

/** The session's sandbox: the mode option, the settings layers' `sandbox` blocks, the option's block last. */
function sessionSandbox(
  options: SessionOptions,
  settings: SettingsLayer[],
  cwd: string,
  directories: string[],
  warn: (line: string) => void,
): SandboxConfig {
  const option = options.sandbox;
  const layers = sandboxLayers(settings);
  if (option !== undefined && !isSandboxMode(option))
    layers.push({ source: 'option', label: 'the sandbox option', block: option });
  return {
    mode: isSandboxMode(option) ? option : undefined,
    layers,
    cwd,
    directories,
    env: options.env,
    warn,
  };
}
