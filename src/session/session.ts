/**
 * A session: the history, the agent context and the prompts run one after another. Each
 * prompt emits `system/init`, the conversation, and exactly one `result`, whatever happens.
 */
import { PromptRunner } from './prompt-runner.ts';
import type { SessionParts, SessionTap } from './session-parts.ts';
import { agentContextOf, permissionRules, systemInit, type RuleEntry } from './session-start.ts';
import { SessionStats } from './session-stats.ts';
import { SessionStyles } from './output-styles.ts';
import type { SettingSource, SettingsLayer } from './setting-sources.ts';
import { whenAborted } from '../process/aborted.ts';
import type { AgentMessage, MessageParam, ResultMessage, SystemInitMessage, TextBlock } from '../messages/types.ts';
import type { InputUserMessage } from '../messages/control.ts';
import type { AgentContext } from '../agent/context.ts';
import { fireHook } from '../agent/hooks.ts';
import { GENERAL_PURPOSE, type AgentDefinition } from '../agent/subagent.ts';
import { createTaskTool } from '../agent/task-tool.ts';
import { HookDispatcher } from '../tools/hooks/dispatcher.ts';
import { agentFilesLoader } from './agent-files.ts';
import { workingFoldersNote } from './main-agent.ts';
import { McpManager } from '../tools/mcp/manager.ts';
import { isWholeToolRule, type PermissionRule } from '../tools/permissions.ts';
import type { Harness } from '../harness/types.ts';
import { keepsInTranscript, type Transcript } from './transcript.ts';
import type { CutTurn } from './transcript-rebuild.ts';
import { AutoCompactor } from '../agent/auto-compact.ts';
import { schemaInstruction } from '../agent/structured-output.ts';
import { closeSandbox } from '../sandbox/config.ts';
import { TaskList } from '../tools/task-list.ts';
import { withoutCodingInstructions } from './system-prompt.ts';
import type { ParentContext, Telemetry } from '../telemetry/types.ts';

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
  ruleEntries: RuleEntry[];
  /** The working folder the session started in. */
  readonly originalCwd: string;
  /** The settings sources that apply (`--setting-sources`, less an untrusted project's). */
  readonly settingSources: readonly SettingSource[];
  /** `allowedTools` / `disallowedTools`. */
  readonly #cliRules: { allow: string[]; deny: string[] };
  /** The model the session started with (`set_model` with no model returns to it). */
  readonly defaultModel: string;
  /** The MCP servers of the session (their tools join `ctx.tools` at each prompt); started by the factory. */
  readonly mcp: McpManager;
  #hideTool: (name: string) => boolean;
  /** Runs the prompts (the turn's state: running, its abort, the results made). */
  readonly #prompts: PromptRunner;
  /** Every hook of the session: settings commands, library callbacks, the SDK client's. */
  readonly hooks = new HookDispatcher();
  /** Subagents of the `Task` tool (empty until agents are defined). */
  readonly agents: Record<string, AgentDefinition> = {};
  /** Reads the agent files of the allowed setting sources, once (`loadAgentFiles`). */
  readonly #agentFiles: () => Promise<void> | undefined;
  /** The transcript being written (absent with `persistSession: false`). */
  readonly transcript?: Transcript;
  /** True when the history came from a transcript (SessionStart hooks then see `source: "resume"`). */
  readonly resumed: boolean;
  /** The turn the transcript ended in the middle of, until `takeCutTurn()` goes on with it. */
  #cutTurn?: CutTurn;
  /** JSON schema the final answer must match (`outputFormat`, `initialize.jsonSchema`). */
  outputSchema?: Record<string, unknown>;
  /** The output styles and the one in effect (output-styles.ts; `reload_output_styles` reads them again). */
  #outputStyles: SessionStyles;
  readonly compactor: AutoCompactor;
  /** The wrapped agent that runs the prompts instead of agentpipe's loop (`harness`). */
  readonly harness?: Harness;
  /** A tape's view of the stream (`record`, `replay`). */
  readonly tap?: SessionTap;
  /** Telemetry of the session's prompts (absent when off). */
  readonly telemetry?: Telemetry;
  /** The parent of each prompt's span: TRACEPARENT from the caller, an ACP request's `_meta` (telemetry on). */
  readonly traceParent?: ParentContext;
  /** Where the stream goes after the transcript (the parts' `emit`). */
  readonly #forward: (m: AgentMessage) => Promise<void> | undefined;

  /** Puts the parts together; `createSession` (session/create.ts) reads and starts them. */
  constructor(parts: SessionParts) {
    const { options, provider, model, cwd, directories, sandbox, log } = parts;
    this.id = options.sessionId;
    this.defaultModel = model;
    this.settingsLayers = parts.settings.layers;
    this.originalCwd = cwd;
    this.settingSources = parts.settings.sources;
    this.#cliRules = parts.cliRules;
    const { allow, deny, entries } = parts.rules;
    this.ruleEntries = entries;
    // `tools` limits the built-in tools, the MCP resource tools among them.
    this.#hideTool = (name) =>
      deny.some((rule) => isWholeToolRule(rule, name)) ||
      (!!options.tools && !name.startsWith('mcp__') && !options.tools.includes(name));
    // The Read deny rules in force when a command starts: the sandbox hides their paths.
    sandbox.readDenied = () =>
      this.ctx.permissions.deny.flatMap((r) => (r.tool === 'Read' && r.specifier !== undefined ? [r.specifier] : []));
    this.mcp = new McpManager(parts.mcpServers, { cwd, sessionId: this.id, sandbox, emit: (m) => this.ctx.emit(m) });
    this.ctx = agentContextOf(options, provider, model, {
      cwd,
      tools: parts.tools,
      directories,
      allow,
      deny,
      sessionId: this.id,
      hooks: this.hooks,
      log,
      emit: (message) => this.emit(message),
      settings: this.settingsLayers,
      debug: parts.debug,
    });
    this.#forward = parts.emit;
    this.compactor = new AutoCompactor(this.history, options.maxContextTokens);
    this.ctx.compaction = this.compactor;
    if (options.outputFormat?.type === 'json_schema') this.setOutputSchema(options.outputFormat.schema);
    this.ctx.sandbox = sandbox;
    this.hooks.sandbox = sandbox;
    this.hooks.transcriptPath = () => this.transcript?.file ?? '';
    for (const layer of this.settingsLayers) this.hooks.addSettings(layer.hooks, layer.source);
    const mainAgent = options.agent
      ? { name: options.agent, appendSystemPrompt: options.appendSystemPrompt, directories }
      : undefined;
    this.#prompts = new PromptRunner(this, mainAgent, options.maxStructuredOutputRetries);
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
      this.settingSources,
      cwd,
      this.agents,
      (fresh) => this.defineAgents(fresh, hideTask),
      this.ctx.warn,
    );
    this.#outputStyles = parts.outputStyles;
    if (parts.outputStyles !== SessionStyles.NONE) this.setOutputStyles(parts.outputStyles);
    // A style without `keep-coding-instructions` takes the place of agentpipe's own working instructions.
    if (parts.outputStyles.active && !parts.outputStyles.active.keepCodingInstructions)
      this.ctx.system = withoutCodingInstructions(this.ctx.system);
    const { start } = parts;
    if (start?.usage) this.stats.carry(start.usage);
    this.history.push(...(start?.history ?? []));
    this.transcript = start?.transcript;
    this.resumed = start?.resumedFrom !== undefined;
    this.#cutTurn = start?.cutTurn;
    if (start?.taskList) this.ctx.toolState.taskList = new TaskList(start.taskList);
    this.harness = parts.harness;
    this.tap = parts.tap;
    this.telemetry = parts.telemetry?.telemetry;
    this.traceParent = parts.telemetry?.traceParent;
  }

  /** The output styles and the one in effect: its section goes into the main agent's requests. */
  get outputStyles(): SessionStyles {
    return this.#outputStyles;
  }

  /** Puts `styles` in effect from the next request (`reload_output_styles`). */
  setOutputStyles(styles: SessionStyles): void {
    this.#outputStyles = styles;
    this.ctx.outputStyle = styles.section;
  }

  /** The turn the transcript ended in the middle of (`continueCutTurn`), until it is taken. */
  get cutTurn(): CutTurn | undefined {
    return this.#cutTurn;
  }

  /** The cut turn, once: the session goes on with it (PromptRunner.continueCutTurn). */
  takeCutTurn(): CutTurn | undefined {
    const cut = this.#cutTurn;
    this.#cutTurn = undefined;
    return cut;
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
    return this.#prompts.running;
  }

  /**
   * Adds blocks the model sees before the next prompt (a local command's trace: model-command.ts), recorded in the
   * transcript; while a prompt runs they wait for it to end (PromptRunner.addContext), so its tool calls and results
   * stay together.
   */
  addContext(blocks: TextBlock[]): Promise<void> {
    return this.#prompts.addContext(blocks);
  }

  /** The `system/init` message for the next prompt. */
  initMessage(): SystemInitMessage {
    return systemInit(this.ctx, this.id, {
      structuredOutput: this.outputSchema !== undefined,
      mcpServers: this.mcp.statusList(),
      agents: Object.keys(this.agents),
      outputStyle: this.outputStyles.name,
    });
  }

  /**
   * Hands a user message to the wrapped agent's running prompt when it can steer (PromptRunner.steer); false when it
   * cannot: the caller queues it as the next prompt.
   */
  steer(input: InputUserMessage): Promise<boolean> {
    return this.#prompts.steer(input);
  }

  /** Aborts the running prompt (model request, tools, child processes), with `reason` as the abort's reason. */
  interrupt(reason?: unknown): void {
    this.#prompts.interrupt(reason);
  }

  /** Runs one prompt to its single `result`, which is emitted and returned. */
  runPrompt(input: InputUserMessage, signal?: AbortSignal): Promise<ResultMessage> {
    return this.#prompts.runPrompt(input, signal);
  }

  /** Goes on with the turn the transcript ended in the middle of (`cutTurn`): PromptRunner.continueCutTurn. */
  continueCutTurn(signal?: AbortSignal, input?: InputUserMessage): Promise<ResultMessage> {
    return this.#prompts.continueCutTurn(signal, input);
  }

  /** Keeps only the tools `allows` lets through, now and when MCP tools come (the main thread's agent). */
  restrictTools(allows: (name: string) => boolean): void {
    const hidden = this.#hideTool;
    this.#hideTool = (name) => hidden(name) || !allows(name);
    this.ctx.tools = this.ctx.tools.filter((t) => allows(t.name));
  }

  /** The rules of the flags and of every settings layer; fills `ruleEntries`. */
  #rules(): { allow: PermissionRule[]; deny: PermissionRule[] } {
    const { allow, deny, entries } = permissionRules(this.#cliRules, this.settingsLayers);
    this.ruleEntries = entries;
    return { allow, deny };
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
  async syncMcpTools(signal: AbortSignal): Promise<void> {
    if (this.mcp.size === 0) return;
    await Promise.race([this.mcp.ready(), whenAborted(signal)]);
    const mcpTools = this.mcp.tools().filter((t) => !this.#hideTool(t.name));
    this.ctx.tools = [...this.ctx.tools.filter((t) => !this.mcp.owns(t)), ...mcpTools];
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
}
