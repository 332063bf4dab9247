/** Maps session options onto the CLI flags of the same names (the inverse of cli/options.ts). */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newUuid } from '../messages/ids.ts';
import { PRIVATE_FILE } from '../process/private-files.ts';
import type { QueryOptions } from './types.ts';

/** Options only the in-process engine can honour (functions and objects that cannot cross a process). */
const IN_PROCESS_ONLY = ['hooks', 'extraTools'] as const;

/** The flags for `options`, and temp files to remove afterwards. */
export function flagsFromOptions(options: QueryOptions): { args: string[]; tempFiles: string[] } {
  for (const name of IN_PROCESS_ONLY) {
    if (options[name] !== undefined)
      throw new Error(
        `query(): option "${name}" holds functions and works in-process only; drop "executable" to use it`,
      );
  }
  const args: string[] = [];
  const tempFiles: string[] = [];
  const add = (flag: string, value: string | number | boolean | undefined) => {
    if (value === undefined || value === false) return;
    args.push(flag);
    if (value !== true) args.push(String(value));
  };
  add('--harness', options.harness);
  add('--harness-command', options.harnessCommand);
  add('--model', options.model);
  add('--provider', options.provider);
  add('--base-url', options.baseUrl);
  if (typeof options.script === 'string') add('--script', path.resolve(options.script));
  else if (options.script) {
    const file = path.join(os.tmpdir(), `agentpipe-script-${newUuid()}.json`);
    // The owner's only, and never through a file put there first (a shared temp folder).
    writeFileSync(file, JSON.stringify(options.script), { mode: PRIVATE_FILE, flag: 'wx' });
    tempFiles.push(file);
    add('--script', file);
  }
  add('--cwd', options.cwd);
  add('--system-prompt', options.systemPrompt);
  add('--append-system-prompt', options.appendSystemPrompt);
  add('--max-turns', options.maxTurns);
  add('--max-budget-usd', options.maxBudgetUsd);
  add('--max-thinking-tokens', options.maxThinkingTokens);
  if (options.allowedTools?.length) args.push('--allowed-tools', ...options.allowedTools);
  if (options.disallowedTools?.length) args.push('--disallowed-tools', ...options.disallowedTools);
  if (options.tools) add('--tools', options.tools.join(','));
  add('--permission-mode', options.permissionMode);
  add('--include-partial-messages', options.includePartialMessages);
  add('--replay-user-messages', options.replayUserMessages);
  add('--include-hook-events', options.includeHookEvents);
  add('--session-id', options.sessionId);
  if (options.mcpServers && Object.keys(options.mcpServers).length)
    add('--mcp-config', JSON.stringify({ mcpServers: options.mcpServers }));
  if (options.agents && Object.keys(options.agents).length) add('--agents', JSON.stringify(options.agents));
  const settings = settingsWithSandbox(options);
  if (settings !== undefined) add('--settings', settings);
  if (typeof options.sandbox === 'string') add('--sandbox', options.sandbox);
  if (options.canUseTool) add('--permission-prompt-tool', 'stdio');
  add('--resume', options.resume);
  add('--continue', options.continue);
  add('--fork-session', options.forkSession);
  add('--resume-session-at', options.resumeSessionAt);
  add('--no-session-persistence', options.persistSession === false);
  add('--max-context-tokens', options.maxContextTokens);
  if (options.outputFormat?.type === 'json_schema') add('--json-schema', JSON.stringify(options.outputFormat.schema));
  add('--api-key-helper', options.apiKeyHelper);
  add('--fallback-model', options.fallbackModel);
  add('--outcome-policy', options.outcomePolicy);
  add('--effort', options.effort);
  if (options.thinking) {
    add('--thinking', options.thinking.type);
    if (options.thinking.type === 'enabled') add('--max-thinking-tokens', options.thinking.budgetTokens);
    if (options.thinking.type !== 'disabled') add('--thinking-display', options.thinking.display);
  }
  if (options.betas?.length) add('--betas', options.betas.join(','));
  for (const dir of options.additionalDirectories ?? []) add('--add-dir', dir); // resolved against --cwd, as in-process
  // The library reads no settings files unless asked; the CLI reads all of them without the flag.
  args.push('--setting-sources', (options.settingSources ?? []).join(','));
  add('--trust-project', options.trustProject === true);
  add('--no-trust-project', options.trustProject === false);
  add('--strict-mcp-config', options.strictMcpConfig === true);
  add('--agent', options.agent);
  add('--debug', typeof options.debug === 'string' ? options.debug : options.debug === true);
  add('--debug-file', options.debugFile);
  // Tapes name files as the caller sees them (the CLI resolves them against its own folder, which is the caller's).
  if (options.record !== undefined) add('--record', path.resolve(options.cwd ?? '', options.record));
  if (options.replay !== undefined) add('--replay', path.resolve(options.cwd ?? '', options.replay));
  add('--replay-tools', options.replayTools);
  add('--replay-until', options.replayUntil);
  const telemetry = options.telemetry;
  if (typeof telemetry === 'object' && (telemetry.tracerProvider || telemetry.meterProvider))
    throw new Error(
      'query(): telemetry.tracerProvider and meterProvider work in-process only; drop "executable", or let the ' +
        'child export with the OTEL_* variables (telemetry: true)',
    );
  add('--otel', telemetry !== undefined && telemetry !== false);
  add('--otel-content', typeof telemetry === 'object' && telemetry.content === true);
  return { args, tempFiles };
}

/** Environment of the child: the options' env (or ours) plus the API key, if given. */
export function childEnv(options: QueryOptions): Record<string, string | undefined> {
  const env = { ...(options.env ?? process.env) };
  // The child's prompts join the caller's trace (as the official SDK hands its CLI the trace context).
  const telemetry = options.telemetry;
  if (typeof telemetry === 'object' && telemetry.traceparent) {
    env.TRACEPARENT = telemetry.traceparent;
    if (telemetry.tracestate) env.TRACESTATE = telemetry.tracestate;
  }
  if (options.apiKey)
    env[options.provider === 'openai' || options.baseUrl ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'] = options.apiKey;
  return env;
}

/**
 * `--settings` for the child: the `settings` option, with a `sandbox` block option merged into it
 * as the official SDK merges its `sandbox` option (a settings file path cannot take it).
 */
function settingsWithSandbox(options: QueryOptions): string | undefined {
  const { settings, sandbox } = options;
  if (sandbox === undefined || typeof sandbox === 'string')
    return settings === undefined ? undefined : typeof settings === 'string' ? settings : JSON.stringify(settings);
  let inline: Record<string, unknown> = {};
  if (typeof settings === 'string') {
    if (!settings.trim().startsWith('{'))
      throw new Error('query(): a settings file path cannot be combined with the sandbox option; pass settings inline');
    inline = JSON.parse(settings) as Record<string, unknown>;
  } else if (settings) inline = settings;
  const own = typeof inline.sandbox === 'object' && inline.sandbox !== null ? inline.sandbox : {};
  return JSON.stringify({ ...inline, sandbox: { ...own, ...sandbox } });
}
