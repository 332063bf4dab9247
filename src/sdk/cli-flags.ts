/** Maps session options onto the CLI flags of the same names (the inverse of cli/options.ts). */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newUuid } from '../messages/ids.ts';
import { PRIVATE_FILE } from '../process/private-files.ts';
import type { QueryOptions } from './types.ts';

/** Options only the in-process engine can honour (functions and objects that cannot cross a process). */
const IN_PROCESS_ONLY = ['hooks', 'extraTools'] as const;

type Value = string | number | boolean | undefined;
/** What a row sees: the options, and the temp files to remove afterwards (a script object is written to one). */
interface Context {
  readonly options: QueryOptions;
  readonly tempFiles: string[];
}
/**
 * One row: a flag and its value (left out when undefined or false; alone when true), or a function adding flags of its
 * own (lists, and options that map onto several flags). The order of the rows is the order of the arguments.
 */
type Row =
  readonly [flag: string, value: (o: QueryOptions, context: Context) => Value] | ((context: Context) => string[]);

const nonEmpty = (o: object | undefined) => o !== undefined && Object.keys(o).length > 0;
const listFlag =
  (flag: string, list: (o: QueryOptions) => readonly string[] | undefined) =>
  ({ options }: Context) => {
    const values = list(options);
    return values?.length ? [flag, ...values] : [];
  };
/** Tapes name files as the caller sees them (the CLI resolves them against its own folder, which is the caller's). */
const tapeFile = (o: QueryOptions, file: string | undefined) =>
  file === undefined ? undefined : path.resolve(o.cwd ?? '', file);

const ROWS: readonly Row[] = [
  ['--harness', (o) => o.harness],
  ['--harness-command', (o) => o.harnessCommand],
  ['--model', (o) => o.model],
  ['--provider', (o) => o.provider],
  ['--base-url', (o) => o.baseUrl],
  ['--script', (o, context) => scriptFile(o, context.tempFiles)],
  ['--cwd', (o) => o.cwd],
  ['--system-prompt', (o) => o.systemPrompt],
  ['--append-system-prompt', (o) => o.appendSystemPrompt],
  ['--max-turns', (o) => o.maxTurns],
  ['--max-budget-usd', (o) => o.maxBudgetUsd],
  ['--max-thinking-tokens', (o) => o.maxThinkingTokens],
  listFlag('--allowed-tools', (o) => o.allowedTools),
  listFlag('--disallowed-tools', (o) => o.disallowedTools),
  ['--tools', (o) => o.tools?.join(',')],
  ['--permission-mode', (o) => o.permissionMode],
  ['--include-partial-messages', (o) => o.includePartialMessages],
  ['--replay-user-messages', (o) => o.replayUserMessages],
  ['--include-hook-events', (o) => o.includeHookEvents],
  ['--session-id', (o) => o.sessionId],
  ['--mcp-config', (o) => (nonEmpty(o.mcpServers) ? JSON.stringify({ mcpServers: o.mcpServers }) : undefined)],
  ['--agents', (o) => (nonEmpty(o.agents) ? JSON.stringify(o.agents) : undefined)],
  ['--settings', (o) => settingsWithSandbox(o)],
  ['--sandbox', (o) => (typeof o.sandbox === 'string' ? o.sandbox : undefined)],
  ['--permission-prompt-tool', (o) => (o.canUseTool ? 'stdio' : undefined)],
  ['--resume', (o) => o.resume],
  ['--continue', (o) => o.continue],
  ['--fork-session', (o) => o.forkSession],
  ['--resume-session-at', (o) => o.resumeSessionAt],
  ['--no-session-persistence', (o) => o.persistSession === false],
  ['--max-context-tokens', (o) => o.maxContextTokens],
  [
    '--json-schema',
    (o) => (o.outputFormat?.type === 'json_schema' ? JSON.stringify(o.outputFormat.schema) : undefined),
  ],
  ['--api-key-helper', (o) => o.apiKeyHelper],
  ['--fallback-model', (o) => o.fallbackModel],
  ['--outcome-policy', (o) => o.outcomePolicy],
  ['--effort', (o) => o.effort],
  ({ options }) => thinkingFlags(options.thinking),
  ['--betas', (o) => (o.betas?.length ? o.betas.join(',') : undefined)],
  // Resolved against --cwd, as in-process.
  ({ options }) => (options.additionalDirectories ?? []).flatMap((dir) => ['--add-dir', dir]),
  // The library reads no settings files unless asked; the CLI reads all of them without the flag.
  ({ options }) => ['--setting-sources', (options.settingSources ?? []).join(',')],
  ['--trust-project', (o) => o.trustProject === true],
  ['--no-trust-project', (o) => o.trustProject === false],
  ['--strict-mcp-config', (o) => o.strictMcpConfig === true],
  ['--agent', (o) => o.agent],
  ['--debug', (o) => (typeof o.debug === 'string' ? o.debug : o.debug === true)],
  ['--debug-file', (o) => o.debugFile],
  ['--record', (o) => tapeFile(o, o.record)],
  ['--replay', (o) => tapeFile(o, o.replay)],
  ['--replay-tools', (o) => o.replayTools],
  ['--replay-until', (o) => o.replayUntil],
  ['--otel', (o) => o.telemetry !== undefined && o.telemetry !== false],
  ['--otel-content', (o) => typeof o.telemetry === 'object' && o.telemetry.content === true],
];

/** The arguments of one flag: none when its value is undefined or false, the flag alone when true. */
function flagArgs(flag: string, value: Value): string[] {
  if (value === undefined || value === false) return [];
  return value === true ? [flag] : [flag, String(value)];
}

/** The flags for `options`, and temp files to remove afterwards. */
export function flagsFromOptions(options: QueryOptions): { args: string[]; tempFiles: string[] } {
  refuseInProcessOnly(options);
  const context: Context = { options, tempFiles: [] };
  const args = ROWS.flatMap((row) =>
    typeof row === 'function' ? row(context) : flagArgs(row[0], row[1](options, context)),
  );
  return { args, tempFiles: context.tempFiles };
}

/** Options holding functions or objects that cannot cross a process are refused with what to do instead. */
function refuseInProcessOnly(options: QueryOptions): void {
  for (const name of IN_PROCESS_ONLY) {
    if (options[name] !== undefined)
      throw new Error(
        `query(): option "${name}" holds functions and works in-process only; drop "executable" to use it`,
      );
  }
  const telemetry = options.telemetry;
  if (typeof telemetry === 'object' && (telemetry.tracerProvider || telemetry.meterProvider))
    throw new Error(
      'query(): telemetry.tracerProvider and meterProvider work in-process only; drop "executable", or let the ' +
        'child export with the OTEL_* variables (telemetry: true)',
    );
}

/** `--script`: a path as given (resolved), or a script object written to a private temp file. */
function scriptFile(options: QueryOptions, tempFiles: string[]): string | undefined {
  if (typeof options.script === 'string') return path.resolve(options.script);
  if (!options.script) return undefined;
  const file = path.join(os.tmpdir(), `agentpipe-script-${newUuid()}.json`);
  // The owner's only, and never through a file put there first (a shared temp folder).
  writeFileSync(file, JSON.stringify(options.script), { mode: PRIVATE_FILE, flag: 'wx' });
  tempFiles.push(file);
  return file;
}

/** `--thinking` with its budget (enabled) and display (not disabled). */
function thinkingFlags(thinking: QueryOptions['thinking']): string[] {
  if (!thinking) return [];
  return [
    ...flagArgs('--thinking', thinking.type),
    ...(thinking.type === 'enabled' ? flagArgs('--max-thinking-tokens', thinking.budgetTokens) : []),
    ...(thinking.type !== 'disabled' ? flagArgs('--thinking-display', thinking.display) : []),
  ];
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
