/**
 * Answers the control requests a client sends (the official SDK's `initialize`, `interrupt`,
 * `set_model`, ...). Each handler returns the response payload, or throws for an `error`
 * response. Unknown subtypes are refused by name.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OutboundRequest } from '../messages/control.ts';
import type { AgentMessage } from '../messages/types.ts';
import { isPermissionMode, PERMISSION_MODES } from '../messages/permission-modes.ts';
import { checkpointsSince } from '../tools/checkpoints.ts';
import { newUuid } from '../messages/ids.ts';
import { knownModels } from '../model/pricing.ts';
import { modelRows, type ModelRow } from '../model/claude-models.ts';
import { setModel } from './model-command.ts';
import { userOutputStylesDir } from './output-styles.ts';
import { slashCommands } from './slash-commands.ts';
import { validateAgents } from '../agent/task-tool.ts';
import { runningTasks } from '../agent/subagent.ts';
import type { Session } from './session.ts';
import { applyInitialize, mcpControlHandlers } from '../tools/mcp/control.ts';
import { infoHandlers, UNAVAILABLE } from './control-info.ts';
import { applyFlagSettings } from './control-settings.ts';
import { loadSettings } from '../tools/hooks/settings.ts';
import { accountInfo, initializeState } from './initialize-state.ts';
import { THINKING_DISPLAYS } from '../model/types.ts';
import { isOneOf } from '../process/guards.ts';

/** What the handlers may use of the runner. */
export interface ControlHost {
  readonly session: Session;
  initialized: boolean;
  readonly queuedPrompts: number;
  /** The uuids of the prompts still waiting. */
  readonly queuedUuids: string[];
  /** Drops a waiting prompt; false when none has that uuid. */
  cancelQueued(uuid: string): boolean;
  emit(message: AgentMessage): Promise<void> | undefined;
  request(request: OutboundRequest, signal?: AbortSignal): Promise<Record<string, unknown>>;
}

type Request = { subtype: string; [key: string]: unknown };
type Handler = (
  host: ControlHost,
  request: Request,
  signal: AbortSignal,
) => Promise<Record<string, unknown> | undefined> | Record<string, unknown> | undefined;

let schemas: typeof import('./control-schema.ts') | undefined;

/**
 * Loads the request schemas (zod, on first use). The reader awaits it before it hands a control
 * request over, so a request is applied before the next input line is read: a prompt that follows
 * `initialize` runs with its agents, hooks and system prompt.
 */
export async function prepareControlHandlers(): Promise<void> {
  schemas ??= await import('./control-schema.ts');
}

const handlers: Record<string, Handler> = {
  async initialize(host, request) {
    const { parseInitialize } = schemas ?? (await import('./control-schema.ts'));
    const init = parseInitialize(request);
    const ctx = host.session.ctx;
    const replaced = typeof init.systemPrompt === 'string' || Array.isArray(init.systemPrompt);
    if (typeof init.systemPrompt === 'string' || Array.isArray(init.systemPrompt)) {
      ctx.system = Array.isArray(init.systemPrompt) ? init.systemPrompt.join('\n') : init.systemPrompt;
      ctx.system = host.session.withNotes(ctx.system); // the --add-dir folders stay named
    }
    const append = [
      typeof init.systemPrompt === 'object' && !Array.isArray(init.systemPrompt) ? init.systemPrompt.append : undefined,
      init.appendSystemPrompt,
    ];
    for (const text of append) if (text) ctx.system = ctx.system ? `${ctx.system}\n\n${text}` : text;
    // Structured output: the schema's instruction must survive a replaced system prompt.
    const schema = host.session.outputSchema ?? init.jsonSchema;
    if (schema && (replaced || host.session.outputSchema === undefined)) host.session.setOutputSchema(schema);
    if (init.hooks)
      host.session.hooks.addClientHooks(init.hooks, (hookRequest, signal) => host.request(hookRequest, signal));
    if (init.agents && Object.keys(init.agents).length)
      host.session.defineAgents(validateAgents(init.agents, 'initialize.agents'));
    if (init.settings !== undefined)
      applyFlagSettings(host.session, loadSettings(init.settings, ctx.cwd, 'initialize.settings').raw);
    if (init.disallowedTools?.length) host.session.denyTools(init.disallowedTools);
    if (init.title?.trim()) host.session.title = init.title.trim();
    host.initialized = true;
    applyInitialize(host.session.mcp, init, (r, signal) => host.request(r, signal));
    const answer = () => ({
      commands: slashCommands(),
      agents: Object.entries(host.session.agents).map(([name, agent]) => ({
        name,
        description: agent.description,
        model: agent.model,
      })),
      output_style: host.session.outputStyles.name,
      available_output_styles: host.session.outputStyles.available,
      user_output_styles_dir: userOutputStylesDir(),
      models: modelsOf(host.session),
      account: accountInfo(ctx.provider),
      pid: process.pid,
      ...initializeState(host.session, init.hooks !== undefined),
    });
    // Agent files (after the client's agents, which win on a name clash); none: answered at once.
    const loading = host.session.loadAgentFiles();
    return loading ? loading.then(answer) : answer();
  },
  async set_permission_mode(host, request) {
    const mode = request.mode;
    if (!isPermissionMode(mode))
      throw new Error(
        `unknown permission mode ${JSON.stringify(request.mode)}; expected one of ${PERMISSION_MODES.join(', ')}`,
      );
    host.session.ctx.permissions.mode = mode;
    host.session.harness?.configure({ permissionMode: mode });
    // As Claude Code 2.1.332: the stream says the mode changed, and the answer names the mode now in effect.
    await host.emit({
      type: 'system',
      subtype: 'status',
      status: null,
      permissionMode: mode,
      uuid: newUuid(),
      session_id: host.session.id,
    });
    return { mode };
  },
  async set_model(host, request) {
    const model = request.model;
    if (model !== undefined && model !== null && typeof model !== 'string')
      throw new Error('set_model: model must be a string or null');
    await setModel(host.session, model);
    return {};
  },
  set_max_thinking_tokens(host, request) {
    const value = request.max_thinking_tokens;
    const ctx = host.session.ctx;
    ctx.thinkingBudgetTokens = typeof value === 'number' && value > 0 ? value : undefined;
    // It overrides `--thinking` from now on: a budget enables thinking, 0 disables it, null returns to the default.
    const shown = request.thinking_display;
    const display = isOneOf(THINKING_DISPLAYS, shown) ? { display: shown } : {};
    ctx.thinking =
      typeof value === 'number'
        ? value > 0
          ? { type: 'enabled', budgetTokens: value, ...display }
          : { type: 'disabled' }
        : undefined;
    return {};
  },
  mcp_status: (host) => mcpControlHandlers.mcp_status(host.session.mcp),
  mcp_reconnect: (host, request) => mcpControlHandlers.mcp_reconnect(host.session.mcp, request),
  mcp_toggle: (host, request) => mcpControlHandlers.mcp_toggle(host.session.mcp, request),
  mcp_set_servers: (host, request) =>
    mcpControlHandlers.mcp_set_servers(host.session.mcp, request, (r, signal) => host.request(r, signal)),
  mcp_message: (host, request) => mcpControlHandlers.mcp_message(host.session.mcp, request),
  mcp_read_resource: (host, request) => mcpControlHandlers.mcp_read_resource(host.session.mcp, request),
  mcp_call: (host, request, signal) => mcpControlHandlers.mcp_call(host.session.mcp, request, signal),
  get_session_cost(host) {
    return { total_cost_usd: host.session.stats.usage.totalCostUsd };
  },
  list_models(host) {
    return { models: modelsOf(host.session) };
  },
  get_context_usage(host) {
    const chars = JSON.stringify(host.session.history).length + host.session.ctx.system.length;
    return { totalTokens: Math.ceil(chars / 4), messages: host.session.history.length, model: host.session.ctx.model };
  },
  async read_file(host, request) {
    if (typeof request.path !== 'string') throw new Error('read_file: path must be a string');
    const absPath = path.resolve(host.session.ctx.cwd, request.path);
    const maxBytes = typeof request.max_bytes === 'number' ? request.max_bytes : 1024 * 1024;
    const buffer = await readFile(absPath);
    const truncated = buffer.length > maxBytes;
    const encoding = request.encoding === 'base64' ? 'base64' : 'utf8';
    return { contents: buffer.subarray(0, maxBytes).toString(encoding), absPath, truncated, encoding };
  },
  stop_task(host, request) {
    const id = request.task_id;
    if (typeof id !== 'string') throw new Error('stop_task: task_id must be a string');
    const task = runningTasks(host.session.ctx.toolState).get(id);
    if (!task)
      throw new Error(`stop_task: no running task ${id} (task ids are the tool_use ids of running Task calls)`);
    task.abort(new DOMException('Stopped by the client', 'AbortError'));
    return {};
  },
  async rewind_files(host, request) {
    const uuid = request.user_message_id;
    if (typeof uuid !== 'string') throw new Error('rewind_files: user_message_id must be a string');
    const checkpoints = checkpointsSince(host.session.ctx.toolState, uuid);
    if (!checkpoints) throw new Error(`rewind_files: no checkpoint for user message ${uuid}`);
    // The oldest content recorded for each file since that message is what it held before.
    const restore = new Map<string, string | null>();
    for (const files of checkpoints)
      for (const [file, before] of files) if (!restore.has(file)) restore.set(file, before);
    if (request.dry_run !== true) {
      for (const [file, before] of restore) {
        if (before === null) await rm(file, { force: true });
        else await writeFile(file, before);
      }
    }
    return { canRewind: true, filesChanged: [...restore.keys()] };
  },
};

/** Answers one inbound control request; `signal` aborts when the client cancels it. */
export async function handleControlRequest(
  host: ControlHost,
  request: Request,
  signal: AbortSignal = new AbortController().signal,
): Promise<Record<string, unknown> | undefined> {
  const handler = Object.hasOwn(handlers, request.subtype)
    ? handlers[request.subtype]
    : Object.hasOwn(infoHandlers, request.subtype)
      ? infoHandlers[request.subtype]
      : undefined;
  if (!handler) {
    if (Object.hasOwn(UNAVAILABLE, request.subtype))
      throw new Error(`${request.subtype} is not available in agentpipe: ${UNAVAILABLE[request.subtype]}`);
    throw new Error(`Unsupported control request subtype: ${request.subtype}`);
  }
  return handler(host, request, signal);
}

/** `supportedModels()`: Claude Code's table on the Anthropic API, else the provider's own models (claude-models.ts). */
function modelsOf(session: Session): ModelRow[] {
  const provider = session.ctx.provider.provider;
  const others = provider === 'openai-compatible' ? knownModels().filter((m) => !m.startsWith('claude-')) : [];
  return modelRows(provider, session.ctx.model, others);
}
