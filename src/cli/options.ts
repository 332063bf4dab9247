/** Maps parsed flags onto the shared session options, and validates their combinations. */
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SessionOptions } from '../session/options.ts';
import { readMcpConfigArg, type McpServerConfig } from '../tools/mcp/config.ts';
import { NOT_YET_SUPPORTED, type CliFlags } from './flags.ts';
import { agentOptionsFromFlags } from './agent-options.ts';
import { sessionFlagOptions } from './session-flags.ts';
import { modelFlagOptions } from './model-flags.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import { telemetryInEnv } from '../telemetry/load.ts';
import { ListenError } from '../transport/listen.ts';

/** A usage error: one line on stderr, exit 1. */
export class UsageError extends AgentpipeError {
  static override readonly errorName: string = 'UsageError';
}

/**
 * An error the user can mend (a UsageError; a server that cannot listen, e.g. a port in use) is said in one line on
 * stderr with exit code 1; any other error is thrown on (an internal error).
 */
export function reportUsageError(error: unknown, log: (line: string) => void): void {
  if (!UsageError.isInstance(error) && !ListenError.isInstance(error)) throw error;
  log(`agentpipe: error: ${error.message}`);
  process.exitCode = 1;
}

export async function sessionOptionsFromFlags(flags: CliFlags): Promise<SessionOptions> {
  const cwd = flags.cwd ? path.resolve(flags.cwd) : process.cwd();
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${flags.cwd}: no such folder`);
  if (flags.script && !existsSync(flags.script)) throw new UsageError(`--script ${flags.script}: no such file`);
  if (flags.sessionId && !UUID_PATTERN.test(flags.sessionId)) {
    throw new UsageError(`--session-id must be a UUID, got ${flags.sessionId}`);
  }
  if (flags.permissionPromptTool && flags.permissionPromptTool !== 'stdio') {
    throw new UsageError(
      `--permission-prompt-tool ${flags.permissionPromptTool}: only "stdio" is supported (MCP permission tools ` +
        `are not yet)`,
    );
  }
  if (flags.harnessCommand !== undefined && (!flags.harness || flags.harness === 'agentpipe'))
    throw new UsageError('--harness-command needs --harness');
  let extras;
  try {
    extras = {
      ...agentOptionsFromFlags(flags, cwd),
      ...sessionFlagOptions(flags, cwd),
      ...modelFlagOptions(flags, cwd),
    };
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const tools =
    flags.tools && flags.tools !== 'default'
      ? flags.tools
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : undefined;
  return {
    cwd,
    model: flags.model,
    provider: flags.provider,
    baseUrl: flags.baseUrl,
    script: flags.script ? path.resolve(flags.script) : undefined,
    systemPrompt: flags.systemPrompt,
    appendSystemPrompt: flags.appendSystemPrompt,
    maxTurns: flags.maxTurns,
    maxBudgetUsd: flags.maxBudgetUsd,
    maxThinkingTokens: flags.maxThinkingTokens,
    allowedTools: flags.allowedTools,
    disallowedTools: flags.disallowedTools,
    tools,
    permissionMode: flags.dangerouslySkipPermissions ? 'bypassPermissions' : flags.permissionMode,
    includePartialMessages: flags.includePartialMessages,
    includeHookEvents: flags.includeHookEvents === true,
    sessionId: flags.sessionId,
    harness: flags.harness,
    harnessCommand: flags.harnessCommand,
    sandbox: flags.sandbox,
    ...telemetryOf(flags),
    ...tapeOptionsOf(flags),
    ...extras,
    mcpServers: await mcpServersOf(flags.mcpConfig),
  };
}

/** `--otel`, `--otel-content`, or the OTEL_* variables that name an exporter. */
function telemetryOf(flags: CliFlags): Pick<SessionOptions, 'telemetry'> {
  if (!flags.otel && !flags.otelContent && !telemetryInEnv(process.env)) return {};
  return { telemetry: flags.otelContent ? { content: true } : true };
}

/** `--record`, `--replay`, `--replay-tools`, `--replay-until` (combinations are checked when the session opens). */
function tapeOptionsOf(flags: CliFlags): Pick<SessionOptions, 'record' | 'replay' | 'replayTools' | 'replayUntil'> {
  if (flags.replayUntil !== undefined && !UUID_PATTERN.test(flags.replayUntil))
    throw new UsageError(`--replay-until must be a message uuid, got ${flags.replayUntil}`);
  return {
    // Files given on the command line are where the shell is, as --script is (not under --cwd).
    ...(flags.record !== undefined ? { record: path.resolve(flags.record) } : {}),
    ...(flags.replay !== undefined ? { replay: path.resolve(flags.replay) } : {}),
    ...(flags.replayTools !== undefined ? { replayTools: flags.replayTools } : {}),
    ...(flags.replayUntil !== undefined ? { replayUntil: flags.replayUntil } : {}),
  };
}

/** Every `--mcp-config` value (file or JSON string), later ones winning by server name. */
async function mcpServersOf(values: string[] | undefined): Promise<Record<string, McpServerConfig> | undefined> {
  if (!values?.length) return undefined;
  const servers: Record<string, McpServerConfig> = {};
  for (const value of values) {
    try {
      Object.assign(servers, await readMcpConfigArg(value, process.cwd()));
    } catch (error) {
      throw new UsageError(errorMessage(error));
    }
  }
  return servers;
}

/**
 * Tapes where every client opens a session of its own (serve, acp): `--record` is refused (one tape holds one
 * session); with `--replay` every session replays the tape, each under a session id of its own.
 */
export function tapesForMany(options: SessionOptions, command: string): SessionOptions {
  if (options.record !== undefined)
    throw new UsageError(
      `--record cannot be used with ${command}: a tape holds one session (--replay can: every session replays it)`,
    );
  return options.replay !== undefined ? { ...options, replaySessionId: false } : options;
}

/** Flags given that have no effect yet, by their option name. */
export function unsupportedFlagsGiven(flags: CliFlags): string[] {
  return NOT_YET_SUPPORTED.filter((name) => flags[name] !== undefined);
}

/** Checks the format combinations of Claude Code. */
export function validateFormats(flags: CliFlags, hasPrompt: boolean): void {
  if (flags.outputFormat === 'stream-json' && !flags.verbose) {
    throw new UsageError('--output-format=stream-json requires --verbose');
  }
  if (flags.inputFormat === 'stream-json' && flags.outputFormat !== 'stream-json') {
    throw new UsageError('--input-format=stream-json requires --output-format=stream-json');
  }
  if (flags.inputFormat === 'stream-json' && hasPrompt) {
    throw new UsageError('a prompt argument cannot be combined with --input-format=stream-json; send it on stdin');
  }
}
