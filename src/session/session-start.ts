/**
 * What a session starts from: its sandbox settings, and the `system/init` message each prompt begins with.
 */
import { CAPABILITIES, FEATURES_OFF } from './initialize-state.ts';
import type { SettingsLayer } from './setting-sources.ts';
import type { SystemInitMessage } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import type { AgentContext } from '../agent/context.ts';
import { STRUCTURED_OUTPUT_TOOL } from '../agent/structured-output.ts';
import { COMPAT_CLAUDE_CODE_VERSION, VERSION } from '../version.ts';
import type { SessionOptions } from './options.ts';
import { isSandboxMode, sandboxLayers, type SandboxConfig } from '../sandbox/config.ts';

/** The `system/init` message for the next prompt. */
export function systemInit(
  ctx: AgentContext,
  sessionId: string,
  of: { structuredOutput: boolean; mcpServers: SystemInitMessage['mcp_servers']; agents: string[] },
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
    slash_commands: [],
    apiKeySource: ctx.provider.apiKeySource,
    claude_code_version: COMPAT_CLAUDE_CODE_VERSION,
    agentpipe_version: VERSION,
    output_style: 'default',
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
