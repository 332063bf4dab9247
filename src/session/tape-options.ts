/**
 * Session options and tapes: what of the options a tape keeps (what can run the session again; never a key, and MCP
 * servers' secret-looking `env` and `headers` values redacted), and the options `agentpipe replay` runs a tape with.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PermissionMode } from '../messages/types.ts';
import type { TapeHeader, TapeSession } from '../model/tape/format.ts';
import { REDACTED } from '../model/tape/writer.ts';
import type { HarnessName } from '../harness/types.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';
import type { SettingSource } from './setting-sources.ts';
import type { SessionOptions } from './options.ts';

/** Names of variables and headers whose values are secrets. */
const SECRET_NAME = /key|token|secret|passw|auth|cookie|credential|session/i;

function redacted(values: unknown): unknown {
  if (!values || typeof values !== 'object') return values;
  return Object.fromEntries(Object.entries(values).map(([name, v]) => [name, SECRET_NAME.test(name) ? REDACTED : v]));
}

/** MCP server configs with their secret-looking `env` and `headers` values redacted. */
function mcpServersOf(servers: Record<string, McpServerConfig>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, config]) => {
      const copy: Record<string, unknown> = { ...config };
      if ('env' in copy) copy.env = redacted(copy.env);
      if ('headers' in copy) copy.headers = redacted(copy.headers);
      return [name, copy];
    }),
  );
}

/** `settings` as JSON: a JSON string parsed, a file read (so the tape holds them whatever happens to the file). */
function settingsOf(settings: SessionOptions['settings'], cwd: string): Record<string, unknown> | undefined {
  if (settings === undefined || typeof settings === 'object') return settings;
  try {
    const text = settings.trim().startsWith('{') ? settings : readFileSync(path.resolve(cwd, settings), 'utf8');
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined; // the session itself reports a settings file it cannot read
  }
}

/** What the tape keeps of `options`. */
export function tapeSessionOf(
  options: SessionOptions,
  ran: { model: string; provider: string; apiKeySource: string; apiBasePath?: string },
): TapeSession {
  const cwd = options.cwd ?? process.cwd();
  const session: TapeSession = {
    ...ran,
    harness: options.harness && options.harness !== 'agentpipe' ? options.harness : undefined,
    harnessCommand: options.harnessCommand,
    systemPrompt: options.systemPrompt,
    appendSystemPrompt: options.appendSystemPrompt,
    maxTurns: options.maxTurns,
    maxBudgetUsd: options.maxBudgetUsd,
    maxTokens: options.maxTokens,
    maxThinkingTokens: options.maxThinkingTokens,
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    tools: options.tools,
    permissionMode: options.permissionMode,
    includePartialMessages: options.includePartialMessages,
    includeHookEvents: options.includeHookEvents,
    settings: settingsOf(options.settings, cwd),
    agents: options.agents as Record<string, unknown> | undefined,
    agent: options.agent,
    mcpServers: options.mcpServers && mcpServersOf(options.mcpServers),
    maxContextTokens: options.maxContextTokens,
    outputFormat: options.outputFormat,
    fallbackModel: options.fallbackModel,
    effort: options.effort,
    thinking: options.thinking,
    betas: options.betas,
    additionalDirectories: options.additionalDirectories,
    settingSources: options.settingSources,
    maxRetries: options.maxRetries,
  };
  return JSON.parse(JSON.stringify(session)) as TapeSession;
}

/** The options a tape's session runs again with, in `cwd`; `overrides` win. */
export function optionsFromTape(header: TapeHeader, cwd: string, overrides: SessionOptions = {}): SessionOptions {
  const s = header.session;
  return {
    cwd,
    model: s.model,
    harness: s.harness as HarnessName | undefined,
    harnessCommand: s.harnessCommand,
    systemPrompt: s.systemPrompt,
    appendSystemPrompt: s.appendSystemPrompt,
    maxTurns: s.maxTurns,
    maxBudgetUsd: s.maxBudgetUsd,
    maxTokens: s.maxTokens,
    maxThinkingTokens: s.maxThinkingTokens,
    allowedTools: s.allowedTools,
    disallowedTools: s.disallowedTools,
    tools: s.tools,
    permissionMode: s.permissionMode as PermissionMode | undefined,
    includePartialMessages: s.includePartialMessages,
    includeHookEvents: s.includeHookEvents,
    settings: s.settings,
    agents: s.agents as SessionOptions['agents'],
    agent: s.agent,
    mcpServers: s.mcpServers as SessionOptions['mcpServers'],
    maxContextTokens: s.maxContextTokens,
    outputFormat: s.outputFormat,
    fallbackModel: s.fallbackModel,
    effort: s.effort,
    thinking: s.thinking,
    betas: s.betas,
    additionalDirectories: s.additionalDirectories,
    settingSources: s.settingSources as SettingSource[] | undefined,
    maxRetries: s.maxRetries,
    ...overrides,
  };
}
