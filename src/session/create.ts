/**
 * Builds a Session (`createSession`): reads what must be read (the settings layers, the output styles, the settings'
 * MCP servers), starts what must be started (telemetry, the sandbox's check, the wrapped agent) and only then puts the
 * finished parts together (`new Session(parts)`, which reads and starts nothing), then starts the MCP servers. A part
 * that fails closes what was opened before it and throws SessionSetupError.
 */
import path from 'node:path';
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import type { AgentMessage } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import type { ModelProvider } from '../model/types.ts';
import type { Harness } from '../harness/types.ts';
import { closeSandbox, type SandboxConfig } from '../sandbox/config.ts';
import type { McpServerConfig } from '../tools/mcp/config.ts';
import type { SessionOptions } from './options.ts';
import type { SessionStart } from './resume.ts';
import { Session } from './session.ts';
import type { SessionParts, SessionTap } from './session-parts.ts';
import { permissionRules, sessionSandbox, sessionTools } from './session-start.ts';
import { sessionSettings, settingsMcpServers } from './setting-sources.ts';
import { SessionStyles } from './output-styles.ts';
import { debugLogger } from './debug-log.ts';

/** Options that cannot start a session (unknown resume id, bad schema, incomplete model settings). */
export class SessionSetupError extends AgentpipeError {
  static override readonly errorName: string = 'SessionSetupError';
  /** Report it as the session's one error `result` too (exit 1), not only on stderr: a required sandbox. */
  readonly asResult: boolean;
  constructor(message: string, options: { asResult?: boolean } = {}) {
    super(message);
    this.asResult = options.asResult === true;
  }
}

/** What `createSession` builds a session from. */
export interface SessionInput {
  /** The options; `sessionId` (else a new one) names the session. */
  options: SessionOptions;
  provider: ModelProvider;
  model: string;
  /** Where the stream goes after the transcript. */
  emit: (m: AgentMessage) => Promise<void> | undefined;
  /** The session's diagnostics (warnings); the CLI's go to stderr, the library's to the caller's `stderr` option. */
  log?: (line: string) => void;
  /** Where it starts (fresh, resumed, forked) and its transcript (session/resume.ts); closed when the start fails. */
  start?: SessionStart;
  /** A tape's view of the stream (SessionTape.tap); closed when the start fails. */
  tap?: SessionTap;
  /** Starts the wrapped agent that runs the prompts (`harness`) in the session's sandbox. */
  harness?: (sandbox: SandboxConfig) => Promise<Harness>;
}

/** The session of `input`; throws SessionSetupError when it cannot start (what it opened is closed). */
export async function createSession(input: SessionInput): Promise<Session> {
  let parts: SessionParts;
  try {
    parts = await sessionParts(input);
  } catch (error) {
    await input.start?.transcript?.close(); // releases the session's lock
    await input.tap?.close();
    throw SessionSetupError.isInstance(error) ? error : new SessionSetupError(errorMessage(error));
  }
  const session = new Session(parts);
  session.mcp.start();
  session.telemetry?.sessionStarted(session.id);
  return session;
}

/** The parts read and started, in the order a failure must undo: the sandbox and telemetry are closed on one. */
async function sessionParts(input: SessionInput): Promise<SessionParts> {
  const read = readParts(input);
  const { options, log } = read;
  const outputStyles = input.harness
    ? SessionStyles.NONE
    : await SessionStyles.load(read.settings.sources, read.cwd, read.settings.layers, (line) =>
        log(`agentpipe: warning: ${line}`),
      );
  const telemetry = await startTelemetry(options, log);
  try {
    await checkSandbox(read.sandbox);
    const harness = await input.harness?.(read.sandbox);
    const fromSettings =
      input.harness || options.strictMcpConfig ? undefined : await settingsMcpServers(read.settings.layers);
    return {
      ...read,
      outputStyles,
      mcpServers: withNewNames(options.mcpServers ?? {}, fromSettings ?? {}),
      ...(input.start ? { start: input.start } : {}),
      ...(harness ? { harness } : {}),
      ...(input.tap ? { tap: input.tap } : {}),
      ...(telemetry ? { telemetry } : {}),
    };
  } catch (error) {
    closeSandbox(read.sandbox);
    await telemetry?.telemetry.flush();
    throw error;
  }
}

/** The parts read from the options and the settings files (their warnings on the log, in this order). */
function readParts(
  input: SessionInput,
): Omit<SessionParts, 'outputStyles' | 'mcpServers' | 'start' | 'harness' | 'tap' | 'telemetry'> {
  const options = { ...input.options, sessionId: input.options.sessionId ?? newUuid() };
  const log = input.log ?? (() => {});
  const warn = (line: string) => log(`agentpipe: warning: ${line}`);
  const cwd = options.cwd ?? process.cwd();
  // The one door of every settings file; an untrusted project's files are named on the log and left out.
  const { layers, sources } = sessionSettings(options, cwd, warn);
  const cliRules = { allow: [...(options.allowedTools ?? [])], deny: [...(options.disallowedTools ?? [])] };
  const rules = permissionRules(cliRules, layers);
  const tools = sessionTools(options, input.provider, layers, rules.deny, log);
  const directories = (options.additionalDirectories ?? []).map((dir) => path.resolve(cwd, dir));
  const sandbox = sessionSandbox(options, layers, cwd, directories, warn);
  return {
    options,
    provider: input.provider,
    model: input.model,
    emit: input.emit,
    log,
    cwd,
    settings: { layers, sources },
    cliRules,
    rules,
    tools,
    directories,
    sandbox,
    debug: debugLogger(options, cwd, log), // throws when the debug file cannot be written
  };
}

/** `first`'s servers, then those of `second` whose names are new (a name the options give wins). */
function withNewNames(
  first: Record<string, McpServerConfig>,
  second: Record<string, McpServerConfig>,
): Record<string, McpServerConfig> {
  const servers = { ...first };
  for (const [name, config] of Object.entries(second)) if (!Object.hasOwn(servers, name)) servers[name] = config;
  return servers;
}

/**
 * A required sandbox must be able to start before anything runs, and a malformed `sandbox`
 * settings block stops the start as any malformed setting does. Only then is bubblewrap probed
 * here; otherwise the first command does it.
 */
async function checkSandbox(config: SandboxConfig): Promise<void> {
  if (config.mode !== 'required' && config.layers.length === 0) return;
  const { sandboxState, SandboxUnavailableError } = await import('../sandbox/sandbox.ts');
  try {
    await sandboxState(config);
  } catch (error) {
    throw new SessionSetupError(errorMessage(error), { asResult: SandboxUnavailableError.isInstance(error) });
  }
}

/**
 * Telemetry of the session (when `options.telemetry` asks for it: the SDK is loaded only then). Its prompts are the
 * children of the option's `traceparent`, else of TRACEPARENT (what the official SDK passes its CLI), else of the
 * caller's active context. A telemetry set-up that fails is told on the log and leaves the session without it.
 */
async function startTelemetry(
  options: SessionOptions,
  log: (line: string) => void,
): Promise<SessionParts['telemetry'] | undefined> {
  if (options.telemetry === undefined || options.telemetry === false) return undefined;
  let telemetry;
  try {
    const { loadTelemetry } = await import('../telemetry/load.ts');
    telemetry = await loadTelemetry(options.telemetry, process.env, log);
  } catch (error) {
    log(`agentpipe: warning: telemetry is off: ${errorMessage(error)}`);
    return undefined;
  }
  if (!telemetry) return undefined;
  const given = typeof options.telemetry === 'object' ? options.telemetry : {};
  const traceparent = given.traceparent ?? process.env.TRACEPARENT;
  const tracestate = given.traceparent !== undefined ? given.tracestate : process.env.TRACESTATE;
  return { telemetry, ...(traceparent ? { traceParent: { traceparent, ...(tracestate ? { tracestate } : {}) } } : {}) };
}
