/**
 * The control requests that read or name the session without running a prompt: usage, settings,
 * permission rules, hooks, status, title, a side question, the prompt queue. Each answers in the
 * shape the official SDK reads (`sdk.d.ts`); where agentpipe lacks the concept (background shell
 * tasks, plan files, skills, plugins) the answer says so in a well-formed way.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { MessageParam } from '../messages/types.ts';
import { COMPAT_CLAUDE_CODE_VERSION, VERSION } from '../version.ts';
import { seedRead } from '../tools/read-state.ts';
import { textAnswer } from '../agent/text-answer.ts';
import { mergeConsecutive } from '../agent/merged-history.ts';
import { UsageTracker } from '../agent/usage.ts';
import { HOOK_EVENTS } from '../tools/hooks/types.ts';
import type { ControlHost } from './control.ts';
import { applyFlagSettings, updateSettingsFile } from './control-settings.ts';
import { isRecord } from '../process/guards.ts';
import { SessionStyles } from './output-styles.ts';
import { slashCommands } from './slash-commands.ts';

type Request = { subtype: string; [key: string]: unknown };
type Answer = Record<string, unknown> | undefined;
type Handler = (host: ControlHost, request: Request, signal: AbortSignal) => Promise<Answer> | Answer;

/** Claude Code's one-line summaries of the hook events, as its /hooks menu shows them. */
const HOOK_SUMMARIES: Record<(typeof HOOK_EVENTS)[number], string> = {
  PreToolUse: 'Before tool execution',
  PostToolUse: 'After tool execution',
  PostToolUseFailure: 'After tool execution fails',
  UserPromptSubmit: 'When the user submits a prompt',
  Stop: 'Right before Claude concludes its response',
  SubagentStart: 'When a subagent (Task tool call) starts',
  SubagentStop: 'Right before a subagent (Task tool call) concludes its response',
  SessionStart: 'When a new session is started',
  SessionEnd: 'When a session is ending',
  PreCompact: 'Before conversation compaction',
  Notification: 'When notifications are sent',
};
const MATCHER_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SessionStart',
  'PreCompact',
  'Notification',
  'SubagentStart',
  'SubagentStop',
]);

const SOURCE_LABELS: Record<string, string> = {
  userSettings: 'User settings',
  projectSettings: 'Project settings',
  localSettings: 'Local settings',
  flagSettings: 'Flag settings (--settings)',
  sessionHook: 'Session hook (library callback)',
  sdkHook: 'SDK hook (initialize)',
};

function requireString(request: Request, key: string): string {
  const value = request[key];
  if (typeof value !== 'string' || !value) throw new Error(`${request.subtype}: ${key} must be a non-empty string`);
  return value;
}

/** The conversation as plain text (`export_conversation`). */
function conversationText(history: MessageParam[]): string {
  const parts: string[] = [];
  for (const message of history) {
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type === 'text') parts.push(`${message.role === 'user' ? '> ' : ''}${block.text}`);
      else if (block.type === 'tool_use') parts.push(`⏺ ${block.name}(${JSON.stringify(block.input)})`);
      else if (block.type === 'tool_result') {
        const text =
          typeof block.content === 'string'
            ? block.content
            : (block.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
        parts.push(`  ⎿ ${text.split('\n').join('\n    ')}`);
      }
    }
  }
  return parts.join('\n\n');
}

export const infoHandlers: Record<string, Handler> = {
  /** Stops the running prompt; the receipt lists the prompts still queued (or cancels them). */
  interrupt(host, request) {
    host.session.interrupt();
    if (request.cancel_queued === true) {
      const cancelled = host.queuedUuids.filter((uuid) => host.cancelQueued(uuid));
      return { still_queued: [], cancelled };
    }
    return { still_queued: host.queuedUuids };
  },
  cancel_async_message(host, request) {
    return { cancelled: host.cancelQueued(requireString(request, 'message_uuid')) };
  },
  get_usage(host) {
    const { usage, durationMs, linesAdded, linesRemoved } = host.session.stats;
    return {
      session: {
        total_cost_usd: usage.totalCostUsd,
        total_api_duration_ms: usage.apiDurationMs,
        total_duration_ms: durationMs,
        total_lines_added: linesAdded,
        total_lines_removed: linesRemoved,
        model_usage: usage.modelUsage,
      },
      subscription_type: null,
      rate_limits_available: false,
      rate_limits: null,
      behaviors: null,
    };
  },
  async rename_session(host, request) {
    const title = requireString(request, 'title').trim();
    if (!title) throw new Error('rename_session: title must not be blank');
    if (typeof request.session_id === 'string' && request.session_id !== host.session.id) {
      throw new Error(`rename_session: this process runs session ${host.session.id}, not ${request.session_id}`);
    }
    host.session.title = title;
    await host.session.transcript?.recordTitle(title);
    return {};
  },
  /** A short title from the model for `description` (or the conversation); `persist` also renames the session. */
  async generate_session_title(host, request, signal) {
    const ctx = host.session.ctx;
    const about =
      typeof request.description === 'string' && request.description.trim()
        ? request.description
        : conversationText(host.session.history).slice(0, 8000);
    if (!about.trim())
      throw new Error('generate_session_title: nothing to name yet (no description and an empty conversation)');
    const system =
      'Write a title of 3 to 7 words for the coding session the user describes. Answer with the title only: no ' +
      'quotes, no punctuation at the end.';
    const usage = new UsageTracker();
    const text = await textAnswer(
      ctx,
      {
        model: ctx.model,
        system,
        messages: [{ role: 'user', content: about }],
        tools: [],
        maxTokens: 64,
        abortSignal: signal,
      },
      usage,
    );
    host.session.stats.usage.merge(usage);
    const title = text
      .trim()
      .split('\n')[0]!
      .replace(/^["'“]+|["'”.]+$/g, '')
      .trim();
    if (!title) throw new Error('generate_session_title: the model answered with no title');
    if (request.persist === true) {
      host.session.title = title;
      await host.session.transcript?.recordTitle(title);
    }
    return { title };
  },
  /** A question about the conversation answered without tools and without joining the history. */
  async side_question(host, request, signal) {
    const question = requireString(request, 'question');
    const ctx = host.session.ctx;
    const earlier = Array.isArray(request.history) ? (request.history as MessageParam[]) : host.session.history;
    const messages = mergeConsecutive([
      ...earlier,
      {
        role: 'user',
        content:
          `${question}\n\n(Answer directly from the conversation so far; no tools are available for this ` +
          `question.)`,
      },
    ]);
    const usage = new UsageTracker();
    const response = await textAnswer(
      ctx,
      { model: ctx.model, system: ctx.system, messages, tools: [], maxTokens: ctx.maxTokens, abortSignal: signal },
      usage,
    );
    host.session.stats.usage.merge(usage);
    return { response, synthetic: false };
  },
  get_settings(host) {
    const layers = host.session.settingsLayers;
    const effective: Record<string, unknown> = {};
    for (const layer of layers) Object.assign(effective, layer.raw);
    const ctx = host.session.ctx;
    return {
      effective,
      sources: layers.map((layer) => ({
        source: layer.source,
        ...(layer.file ? { path: layer.file } : {}),
        settings: layer.raw,
      })),
      applied: { model: ctx.model, effort: ctx.effort ?? null, permissionMode: ctx.permissions.mode },
      errors: [],
    };
  },
  apply_flag_settings(host, request) {
    if (!isRecord(request.settings)) throw new Error('apply_flag_settings: settings must be an object');
    applyFlagSettings(host.session, request.settings);
    return {};
  },
  async update_settings(host, request) {
    if (request.source !== 'localSettings' && request.source !== 'userSettings')
      throw new Error('update_settings: source must be "localSettings" or "userSettings"');
    if (!isRecord(request.settings)) throw new Error('update_settings: settings must be an object');
    await updateSettingsFile(host.session, request.source, request.settings);
    return {};
  },
  list_permission_rules(host) {
    const session = host.session;
    const rules = session.ruleEntries.map((entry) => ({
      ...entry,
      editability: entry.source === 'cliArg' || entry.source === 'flagSettings' ? 'session' : 'persistent',
    }));
    const workspaceDirectories = [
      { path: session.ctx.cwd, source: 'session' },
      ...(session.ctx.permissions.directories ?? []).map((dir) => ({ path: dir, source: 'cliArg' })),
    ];
    return { state: { rules, workspaceDirectories, originalCwd: session.originalCwd, managedOnly: false, errors: [] } };
  },
  get_hooks_listing(host) {
    const rows = host.session.hooks.listing();
    const events = HOOK_EVENTS.filter((event) => rows.some((r) => r.event === event)).map((name) => ({
      name,
      summary: HOOK_SUMMARIES[name],
      supportsMatcher: MATCHER_EVENTS.has(name),
      hookCount: rows.filter((r) => r.event === name).length,
    }));
    const hooks = rows.map((row) => ({
      event: row.event,
      matcher: row.matcher,
      source: row.source,
      sourceLabel: SOURCE_LABELS[row.source] ?? row.source,
      type: row.type,
      displayText: row.text,
      commandText: row.text,
      contentLabel: row.type === 'command' ? 'Command' : 'Callback',
      timeout: Math.round(row.timeoutMs / 1000),
    }));
    const eventCatalog = HOOK_EVENTS.map((name) => ({
      name,
      summary: HOOK_SUMMARIES[name],
      supportsMatcher: MATCHER_EVENTS.has(name),
    }));
    return { events, hooks, eventCatalog };
  },
  async seed_read_state(host, request) {
    const file = requireString(request, 'path');
    if (typeof request.mtime !== 'number' || !Number.isFinite(request.mtime))
      throw new Error('seed_read_state: mtime must be a number (milliseconds)');
    await seedRead(host.session.ctx.toolState, path.resolve(host.session.ctx.cwd, file), request.mtime);
    return {};
  },
  /** A folder the model may also work in, as `--add-dir` adds. */
  async register_repo_root(host, request) {
    const dir = await realpath(path.resolve(host.session.ctx.cwd, requireString(request, 'directory')));
    if (!(await stat(dir)).isDirectory()) throw new Error(`register_repo_root: ${dir} is not a directory`);
    host.session.addDirectory(dir);
    return {};
  },
  get_status(host) {
    const ctx = host.session.ctx;
    return {
      version: VERSION,
      claude_code_version: COMPAT_CLAUDE_CODE_VERSION,
      session_id: host.session.id,
      title: host.session.title ?? null,
      cwd: ctx.cwd,
      model: ctx.model,
      permission_mode: ctx.permissions.mode,
      api_provider: ctx.provider.provider,
      api_key_source: ctx.provider.apiKeySource,
      mcp_servers: host.session.mcp.statusList().map((s) => ({ name: s.name, status: s.status })),
      setting_sources: host.session.settingsLayers.map((l) => l.source),
      running: host.session.running,
      queued_prompts: host.queuedPrompts,
    };
  },
  get_binary_version() {
    return { version: VERSION, claude_code_version: COMPAT_CLAUDE_CODE_VERSION };
  },
  export_conversation(host) {
    return { format: 'text', content: conversationText(host.session.history) };
  },
  /** agentpipe has no plan files: plan mode's plan is the model's last answer. */
  get_plan() {
    return { plan: null };
  },
  /** agentpipe runs every tool call in the foreground: nothing to background. */
  background_tasks() {
    return { backgrounded: false };
  },
  get_task_output(_host, request) {
    throw new Error(
      `get_task_output: no background task ${JSON.stringify(request.task_id)}; agentpipe runs shell commands ` +
        `in the foreground (their output is the tool result)`,
    );
  },
  /** Reads the output-style folders again; the style the settings choose takes effect from the next request. */
  async reload_output_styles(host) {
    const session = host.session;
    const { settingSources, settingsLayers, ctx } = session;
    session.setOutputStyles(await SessionStyles.load(settingSources, ctx.cwd, settingsLayers, ctx.warn));
    return { available_output_styles: session.outputStyles.available };
  },
  reload_skills() {
    return { skills: [] };
  },
  reload_plugins(host) {
    return {
      commands: slashCommands(),
      plugins: [],
      error_count: 0,
      mcpServers: host.session.mcp.statusList(),
      agents: Object.entries(host.session.agents).map(([name, agent]) => ({
        name,
        description: agent.description,
        model: agent.model,
      })),
    };
  },
  /** agentpipe's output is never held back for subscribers: acknowledged. */
  set_has_subscribers: () => ({}),
  set_color: () => ({}),
  set_prompt_suggestions_paused: () => ({}),
};

/** Subtypes of Claude Code features agentpipe does not have, and why: each answered with an error that says so. */
export const UNAVAILABLE: Record<string, string> = {
  claude_authenticate:
    'agentpipe takes provider keys from the environment (ANTHROPIC_API_KEY, --api-key-helper), not claude.ai sign-in',
  claude_oauth_callback: 'agentpipe has no claude.ai sign-in',
  claude_oauth_wait_for_completion: 'agentpipe has no claude.ai sign-in',
  mcp_authenticate: 'MCP OAuth is not supported; give the server its token in headers or env',
  mcp_clear_auth: 'MCP OAuth is not supported',
  mcp_oauth_callback_url: 'MCP OAuth is not supported',
  set_mcp_permission_mode_override:
    'per-server permission modes are not supported; use permission rules such as mcp__server__*',
  get_chrome_browsers: 'agentpipe has no Chrome integration',
  get_chrome_dialog: 'agentpipe has no Chrome integration',
  select_chrome_browser: 'agentpipe has no Chrome integration',
  set_chrome_browser_hints: 'agentpipe has no Chrome integration',
  get_memory_dialog: 'agentpipe has no terminal dialogs',
  get_sandbox_dialog: 'agentpipe has no terminal dialogs',
  get_skills_dialog: 'agentpipe has no skills',
  remote_control: 'agentpipe has no claude.ai Remote Control; use `agentpipe serve`',
  claim_session: 'agentpipe has no hosted sessions; resume a saved one with --resume',
  channel_enable: 'agentpipe has no channels',
  submit_feedback: 'agentpipe sends nothing to Anthropic; report issues to the agentpipe project',
  submit_survey_feedback: 'agentpipe sends nothing to Anthropic',
  message_rated: 'agentpipe sends nothing to Anthropic',
  ultrareview_launch: 'agentpipe has no cloud review',
  set_cwd:
    'the working folder is fixed for a session; start a new session with that cwd (or add it with register_repo_root)',
  file_suggestions: 'agentpipe has no @-mention index; list files with the Glob tool or read_file',
  dictate: 'agentpipe has no dictation',
  read_cloud_sessions: 'agentpipe has no cloud sessions',
  log_host_events: 'agentpipe has no host event log',
};
