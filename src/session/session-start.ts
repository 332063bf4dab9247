/**
 * What a session starts from: its agent context and sandbox settings, and the `system/init` message each prompt
 * begins with.
 */
import { CAPABILITIES, FEATURES_OFF } from './initialize-state.ts';
import { alwaysThinkingEnabled, type SettingsLayer, type SettingsLayerSource } from './setting-sources.ts';
import type { SystemInitMessage } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import type { AgentContext } from '../agent/context.ts';
import { STRUCTURED_OUTPUT_TOOL } from '../agent/structured-output.ts';
import { COMPAT_CLAUDE_CODE_VERSION, VERSION } from '../version.ts';
import type { SessionOptions } from './options.ts';
import { isSandboxMode, sandboxLayers, type SandboxConfig } from '../sandbox/config.ts';
import type { Tool } from '../tools/types.ts';
import { formatRule, isWholeToolRule, parseRules, type PermissionRule } from '../tools/permissions.ts';
import { builtinTools } from '../tools/builtin/index.ts';
import { unknownToolWarnings } from '../tools/hooks/settings-check.ts';
import type { HookDispatcher } from '../tools/hooks/dispatcher.ts';
import type { ModelProvider } from '../model/types.ts';
import { ToolState } from '../tools/state.ts';
import { envCount } from '../process/env-number.ts';
import { outcomePolicyFor } from '../agent/outcome-policy.ts';
import { parseFallbackModels } from '../agent/fallback.ts';
import type { DebugLog } from './debug-log.ts';
import { systemPromptOf } from './system-prompt.ts';
import { SLASH_COMMANDS } from './slash-commands.ts';

/** The `system/init` message for the next prompt. */
export function systemInit(
  ctx: AgentContext,
  sessionId: string,
  of: {
    structuredOutput: boolean;
    mcpServers: SystemInitMessage['mcp_servers'];
    agents: string[];
    /** The output style in effect (output-styles.ts). */
    outputStyle: string;
  },
): SystemInitMessage {
  return {
    type: 'system',
    subtype: 'init',
    cwd: ctx.cwd,
    session_id: sessionId,
    tools: withStructuredOutput(
      ctx.tools.map((t) => t.name),
      of.structuredOutput,
    ),
    mcp_servers: of.mcpServers,
    model: ctx.model,
    permissionMode: ctx.permissions.mode,
    slash_commands: SLASH_COMMANDS.map((command) => command.name),
    apiKeySource: ctx.provider.apiKeySource,
    claude_code_version: COMPAT_CLAUDE_CODE_VERSION,
    agentpipe_version: VERSION,
    output_style: of.outputStyle,
    agents: of.agents,
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

/** The session's sandbox: the mode option, the settings layers' `sandbox` blocks, the option's block last. */
export function sessionSandbox(
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

/** What the session's agent context is built from besides the options (agentContextOf). */
export interface ContextParts {
  cwd: string;
  tools: Tool[];
  directories: string[];
  allow: PermissionRule[];
  deny: PermissionRule[];
  sessionId: string;
  hooks: HookDispatcher;
  log: (line: string) => void;
  emit: AgentContext['emit'];
  /** The settings layers (their `alwaysThinkingEnabled` reaches Claude Code's default request). */
  settings: SettingsLayer[];
  /** `--debug` / `--debug-file` (debugLogger, opened by the session's factory). */
  debug: DebugLog | undefined;
}

/** The main agent's context of a new session: its model settings, permissions, limits and outcome policy. */
export function agentContextOf(
  options: SessionOptions,
  provider: ModelProvider,
  model: string,
  at: ContextParts,
): AgentContext {
  const policy = outcomePolicyFor(options.outcomePolicy, provider.provider);
  return {
    provider,
    model,
    cwd: at.cwd,
    tools: at.tools,
    system: systemPromptOf(options, at.cwd, at.directories),
    sessionId: at.sessionId,
    parentToolUseId: null,
    maxTurns: options.maxTurns,
    maxBudgetUsd: options.maxBudgetUsd,
    // Claude Code 2.1.332 asks Claude for 32,000 tokens (claude-sonnet-4-6); other providers' models get 16,384.
    maxTokens: options.maxTokens ?? (provider.provider === 'anthropic' ? 32_000 : 16_384),
    thinkingBudgetTokens: options.maxThinkingTokens,
    thinking: options.thinking,
    effort: options.effort,
    betas: options.betas,
    claudeRequest: {
      alwaysThinkingEnabled: alwaysThinkingEnabled(at.settings),
      env: options.env ?? process.env,
      maxTokensChosen: options.maxTokens !== undefined,
    },
    fallbackModels: parseFallbackModels(options.fallbackModel),
    debug: at.debug,
    warn: (line) => at.log(`agentpipe: warning: ${line}`),
    permissions: {
      mode: options.permissionMode ?? 'default',
      allow: at.allow,
      deny: at.deny,
      directories: at.directories,
    },
    canUseTool: options.canUseTool,
    hooks: at.hooks,
    includePartialMessages: options.includePartialMessages ?? false,
    toolState: new ToolState(),
    progressThresholdMs: options.toolProgressThresholdMs ?? 1000,
    progressIntervalMs: options.toolProgressIntervalMs ?? 1000,
    // CLAUDE_CODE_MAX_RETRIES as Claude Code reads it (the SDK passes it in `env`).
    maxRetries:
      options.maxRetries ??
      envCount('CLAUDE_CODE_MAX_RETRIES', policy.retries.defaultMaxRetries, options.env ?? process.env),
    policy,
    emit: at.emit,
    ...(options.runGuard ? { guard: options.runGuard } : {}),
  };
}

/** The tools a session starts with: the built-in and extra tools, less what `tools` leaves out and deny rules hide. */
export function sessionTools(
  options: SessionOptions,
  provider: ModelProvider,
  settings: SettingsLayer[],
  deny: PermissionRule[],
  log: (line: string) => void,
): Tool[] {
  let tools: Tool[] = [...builtinTools(provider), ...(options.extraTools ?? [])];
  for (const line of unknownToolWarnings(settings, tools)) log(`agentpipe: warning: ${line}`);
  if (options.tools) tools = tools.filter((t) => options.tools!.includes(t.name) || t.name.startsWith('mcp__'));
  tools = tools.filter((t) => !deny.some((rule) => isWholeToolRule(rule, t.name)));
  return tools;
}

/** A permission rule with where it came from (`list_permission_rules`). */
export interface RuleEntry {
  behavior: 'allow' | 'deny';
  source: SettingsLayerSource | 'cliArg';
  rule: string;
}

/** The rules of the flags (`allowedTools` / `disallowedTools`) and of every settings layer, with their entries. */
export function permissionRules(
  cli: { allow: string[]; deny: string[] },
  layers: readonly SettingsLayer[],
): { allow: PermissionRule[]; deny: PermissionRule[]; entries: RuleEntry[] } {
  const out: { allow: PermissionRule[]; deny: PermissionRule[]; entries: RuleEntry[] } = {
    allow: [],
    deny: [],
    entries: [],
  };
  for (const { source, permissions } of [{ source: 'cliArg' as const, permissions: cli }, ...layers]) {
    for (const behavior of ['allow', 'deny'] as const) {
      for (const rule of parseRules(permissions[behavior])) {
        out[behavior].push(rule);
        out.entries.push({ behavior, source, rule: formatRule(rule) });
      }
    }
  }
  return out;
}
