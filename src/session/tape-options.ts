/**
 * Session options and tapes: what of the options a tape keeps (what can run the session again; never a key, and MCP
 * servers' secret-looking `env` and `headers` values redacted), and the options `agentpipe replay` runs a tape with.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TapeHeader, TapeSession } from '../model/tape/format.ts';
import type { TapeSessionSchema } from '../model/tape/schema.ts';
import { REDACTED } from '../model/tape/writer.ts';
import type { HarnessName } from '../harness/types.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';
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

/** The options a tape keeps as they are (beside the model, the harness, the settings and the MCP servers). */
const KEPT = [
  'harnessCommand',
  'systemPrompt',
  'appendSystemPrompt',
  'maxTurns',
  'maxBudgetUsd',
  'maxTokens',
  'maxThinkingTokens',
  'allowedTools',
  'disallowedTools',
  'tools',
  'permissionMode',
  'includePartialMessages',
  'includeHookEvents',
  'agents',
  'agent',
  'maxContextTokens',
  'outputFormat',
  'fallbackModel',
  'effort',
  'thinking',
  'betas',
  'additionalDirectories',
  'settingSources',
  'maxRetries',
  'outcomePolicy',
] as const satisfies ReadonlyArray<keyof SessionOptions & keyof (typeof TapeSessionSchema)['shape']>;

/** The KEPT fields `from` has. */
function kept<T extends Partial<Record<(typeof KEPT)[number], unknown>>>(from: T): Partial<T> {
  return Object.fromEntries(KEPT.flatMap((key) => (from[key] !== undefined ? [[key, from[key]]] : []))) as Partial<T>;
}

/** What the tape keeps of `options`. */
export function tapeSessionOf(
  options: SessionOptions,
  ran: { model: string; provider: string; apiKeySource: string; apiBasePath?: string },
): TapeSession {
  const cwd = options.cwd ?? process.cwd();
  const session: TapeSession = {
    ...ran,
    ...kept(options),
    harness: options.harness && options.harness !== 'agentpipe' ? options.harness : undefined,
    settings: settingsOf(options.settings, cwd),
    mcpServers: options.mcpServers && mcpServersOf(options.mcpServers),
  };
  return JSON.parse(JSON.stringify(session)) as TapeSession;
}

/**
 * The options a tape's session runs again with, in `cwd`; `overrides` win. (The tape's schema checked its values;
 * its agents and setting sources are what this agentpipe wrote.)
 */
export function optionsFromTape(header: TapeHeader, cwd: string, overrides: SessionOptions = {}): SessionOptions {
  const s = header.session;
  return {
    cwd,
    model: s.model || undefined,
    ...(kept(s) as Partial<SessionOptions>),
    harness: s.harness as HarnessName | undefined,
    settings: s.settings,
    mcpServers: s.mcpServers as SessionOptions['mcpServers'],
    ...overrides,
  };
}
