/**
 * Opens a session from the shared options, the same way for every entry point (`-p` on stdio,
 * `--sdk-url`, `agentpipe serve`, the library's `query()`): where it starts (fresh, resumed,
 * forked; its transcript), the `outputFormat` check, the model with its credentials (API key
 * helper, `auth_status` on a missing key), and `can_use_tool` over the control
 * channel when asked. The caller feeds `runner.run(input)` and then calls `session.close()`.
 */
import { errorMessage } from '../process/errors.ts';
import type { AgentMessage } from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { isPromptEcho } from '../messages/user.ts';
import { shownToWire } from '../messages/prompt-shown.ts';
import type { OutputLine } from '../pipeline/format/types.ts';
import {
  chooseProvider,
  DEMO_NOTICE,
  MissingCredentialsError,
  resolveModel,
  type ResolvedModel,
} from '../model/resolve.ts';
import { resolveWithKeyHelper, type AuthStatus } from '../model/auth.ts';
import { FailingProvider } from '../model/failing.ts';
import { ModelError } from '../model/errors.ts';
import { compileSchema } from '../agent/structured-output.ts';
import type { CanUseTool } from '../agent/context.ts';
import type { SessionOptions } from './options.ts';
import type { Session } from './session.ts';
import { createSession, SessionSetupError } from './create.ts';
import type { Harness } from '../harness/types.ts';
import type { SandboxConfig } from '../sandbox/config.ts';
import { envMs } from '../process/env-number.ts';
import { SessionRunner } from './runner.ts';
import { prepareSession } from './resume.ts';
import type { SessionTape } from './tape.ts';
import { isTrustedFolder } from './trust.ts';

/** Where the session's lines go, and how it talks to its client. */
export interface SessionIo {
  /** Every line the session and its runner emit (messages, control requests and responses). */
  /** Hands a line on; a promise when the producer must wait (backpressure). */
  send: (line: OutputLine) => Promise<void> | undefined;
  /** Diagnostics (stderr). */
  log: (line: string) => void;
  /** Send the prompt echoes (`user` with `isReplay`) on, as `--replay-user-messages` asks; dropped otherwise. */
  replayUserMessages?: boolean;
  /** `stdio`: ask the client through `can_use_tool` control requests. */
  permissionPromptTool?: string;
  /** `system/status` `requesting` before each model request (stream-json input, as Claude Code does). */
  announceRequests?: boolean;
  /** Hold user messages until the client's `initialize` was handled (`--await-initialize`). */
  awaitInitialize?: boolean;
}

export interface OpenedSession {
  session: Session;
  runner: SessionRunner;
  /** The session's tape (`record`, `replay`), when it has one. */
  tape?: SessionTape;
}

/** Opens the session; throws SessionSetupError when the options cannot start one. */
export async function openSession(options: SessionOptions, io: SessionIo): Promise<OpenedSession> {
  const prepared = await prepare(options, io);
  const { start, tape } = prepared;
  options = prepared.options;
  const sessionId = start.sessionId;
  // Set once built; the auth status and the key helper's sandbox read it until then as undefined.
  let session: Session | undefined = undefined;
  // Credentials are checked at model requests, once the session exists: its one emit carries the status.
  const onAuthStatus = (status: AuthStatus) => {
    const message: AgentMessage = { type: 'auth_status', ...status, uuid: newUuid(), session_id: sessionId };
    return session ? session.emit(message) : io.send(message);
  };
  const wrapped = options.harness && options.harness !== 'agentpipe' ? options.harness : undefined;
  let resolved: ResolvedModel & { authError?: string };
  try {
    resolved = wrapped
      ? harnessModel(options, wrapped)
      : tape
        ? await tape.model(sessionId, (o) => sessionModel(o, onAuthStatus, () => session?.ctx.sandbox))
        : await sessionModel(options, onAuthStatus, () => session?.ctx.sandbox);
  } catch (error) {
    await start.transcript?.close();
    await tape?.close();
    throw SessionSetupError.isInstance(error) ? error : new SessionSetupError(errorMessage(error));
  }
  const { provider, model, authError } = resolved;
  if (resolved.demo) io.log(DEMO_NOTICE);

  // The prompt echoes are on the session's stream for every face; stream-json prints them only when asked.
  const forward = (message: AgentMessage) =>
    isPromptEcho(message) && !io.replayUserMessages ? undefined : io.send(message);
  session = await createSession({
    options: { ...options, sessionId },
    provider,
    model,
    emit: forward,
    log: io.log,
    start,
    ...(tape ? { tap: tape.tap } : {}),
    ...(wrapped
      ? { harness: (sandbox) => startSessionHarness(sessionId, options, wrapped, start, tape, io.log, sandbox) }
      : {}),
  });
  const runner = new SessionRunner(session, io.send, {
    replayUserMessages: io.replayUserMessages,
    seenUuids: start.seenUuids,
    log: io.log,
    awaitInitialize: io.awaitInitialize,
  });
  session.ctx.announceRequests = io.announceRequests === true;
  if (io.permissionPromptTool === 'stdio') session.ctx.canUseTool = canUseToolOverControl(runner);
  tape?.attach(session);
  if (authError) await onAuthStatus({ isAuthenticating: false, output: [], error: authError });
  return { session, runner, ...(tape ? { tape } : {}) };
}

/** The tape (when one is asked for) and the session's start (fresh, resumed, forked); the output schema checked. */
async function prepare(
  options: SessionOptions,
  io: SessionIo,
): Promise<{
  start: Awaited<ReturnType<typeof prepareSession>>;
  tape: SessionTape | undefined;
  options: SessionOptions;
}> {
  let start: Awaited<ReturnType<typeof prepareSession>> | undefined;
  let tape: SessionTape | undefined;
  try {
    // Tapes load only when asked for (zod, the proxy): the plain print path never sees this module.
    if (options.record !== undefined || options.replay !== undefined) {
      tape = (await import('./tape.ts')).prepareTape(options, io.log);
      options = tape.options;
    }
    start = await prepareSession(options, io.log, io.send);
    if (options.outputFormat) await compileSchema(options.outputFormat.schema);
  } catch (error) {
    await start?.transcript?.close(); // releases the session's lock
    throw new SessionSetupError(errorMessage(error));
  }
  return { start, tape, options };
}

/** The session's wrapped agent, started with the tape's options when it has one. */
async function startSessionHarness(
  sessionId: string,
  options: SessionOptions,
  wrapped: Exclude<NonNullable<SessionOptions['harness']>, 'agentpipe'>,
  start: Awaited<ReturnType<typeof prepareSession>>,
  tape: SessionTape | undefined,
  log: (line: string) => void,
  sandbox: SandboxConfig,
): Promise<Harness> {
  const harnessOptions = tape ? await tape.harness(sessionId, wrapped) : options;
  return await startHarness(harnessOptions, wrapped, sessionId, start.harness, log, sandbox);
}

/** `--permission-prompt-tool stdio`: each permission prompt is a `can_use_tool` control request to the client. */
function canUseToolOverControl(runner: SessionRunner): CanUseTool {
  return async (toolName, input, { signal, toolUseId, suggestions, ...shown }) => {
    const answer = await runner.request(
      {
        subtype: 'can_use_tool',
        tool_name: toolName,
        input,
        tool_use_id: toolUseId,
        permission_suggestions: suggestions,
        ...shownToWire(shown),
      },
      signal,
    );
    return (await import('../messages/control-schema.ts')).parsePermissionResult(answer);
  };
}

/**
 * A session run by a wrapped agent has no model of agentpipe's: what would need one (`/compact`,
 * a title, a side question) fails with an error that says so.
 */
function harnessModel(options: SessionOptions, name: string): ResolvedModel & { authError?: string } {
  const failure = new ModelError({
    message: `not available when --harness ${name} runs the session (the wrapped agent has its own model)`,
    kind: 'invalid_request',
  });
  return { provider: new FailingProvider(name, failure), model: options.model ?? name };
}

/** Options a wrapped agent cannot honour: named once on the session's log. */
const NOT_FOR_HARNESSES = [
  'mcpServers',
  'agents',
  'agent',
  'hooks',
  'extraTools',
  'tools',
  'outputFormat',
  'maxBudgetUsd',
  'fallbackModel',
  'thinking',
  'maxThinkingTokens',
  'effort',
  'betas',
  'additionalDirectories',
  'script',
  'apiKeyHelper',
  'maxContextTokens',
] as const satisfies ReadonlyArray<keyof SessionOptions>;

/** Starts the wrapped agent of the session (resuming its own session when the transcript names one). */
async function startHarness(
  options: SessionOptions,
  name: Exclude<NonNullable<SessionOptions['harness']>, 'agentpipe'>,
  sessionId: string,
  resumed: { name: string; sessionId: string } | undefined,
  log: (line: string) => void,
  sandbox: SandboxConfig | undefined,
): Promise<Harness> {
  const { createHarness, harnessCommand, harnessEnv, HarnessSetupError, HARNESS_CLIS, missingLogin } =
    await import('../harness/index.ts');
  const base = options.env ?? process.env;
  const ignored = NOT_FOR_HARNESSES.filter((key) => {
    const value = options[key];
    return (
      value !== undefined &&
      !(Array.isArray(value) && value.length === 0) &&
      !(typeof value === 'object' && value !== null && Object.keys(value).length === 0)
    );
  });
  if (ignored.length) log(`agentpipe: warning: --harness ${name} cannot honour ${ignored.join(', ')} (ignored)`);
  const command = await harnessCommand(name, options.harnessCommand, base);
  const env = harnessEnv(name, base, options.apiKey);
  const cwd = options.cwd ?? process.cwd();
  const noLogin = missingLogin(name, HARNESS_CLIS[name].keys, env, cwd);
  if (noLogin) throw new HarnessSetupError(noLogin);
  return createHarness(
    {
      name,
      command,
      cwd,
      env,
      sandbox,
      model: options.model,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      systemPrompt: options.systemPrompt,
      appendSystemPrompt: options.appendSystemPrompt,
      permissionMode: options.permissionMode ?? 'default',
      allowedTools: options.allowedTools ?? [],
      disallowedTools: options.disallowedTools ?? [],
      maxTurns: options.maxTurns,
      includePartialMessages: options.includePartialMessages ?? false,
      idleMs: envMs('AGENTPIPE_HARNESS_IDLE_MS', 15 * 60_000, { env: base }),
      progress: {
        thresholdMs: options.toolProgressThresholdMs ?? 1000,
        intervalMs: options.toolProgressIntervalMs ?? 1000,
      },
      projectSettings: options.trustProject !== false || isTrustedFolder(options.cwd ?? process.cwd()),
      resumeNativeId: resumed?.name === name ? resumed.sessionId : undefined,
      warn: (line) => log(`agentpipe: warning: ${line}`),
    },
    sessionId,
  );
}

/**
 * The model with its credentials: a key helper runs on the first request; a rejected key is
 * reported; missing credentials give a provider that fails every request with that error.
 */
async function sessionModel(
  options: SessionOptions,
  onAuthStatus: (status: AuthStatus) => Promise<void> | undefined,
  sandbox: () => SandboxConfig | undefined,
): Promise<ResolvedModel & { authError?: string }> {
  try {
    if (options.apiKeyHelper) {
      const cwd = options.cwd ?? process.cwd();
      return await resolveWithKeyHelper(options, options.apiKeyHelper, cwd, onAuthStatus, sandbox);
    }
    // A key the provider rejects is reported by the agent loop once the retries are over (agent/loop.ts).
    return await resolveModel(options);
  } catch (error) {
    if (!MissingCredentialsError.isInstance(error)) throw new SessionSetupError(errorMessage(error));
    const failure = new ModelError({ message: error.message, kind: 'authentication_failed' });
    return {
      provider: new FailingProvider(chooseProvider(options), failure),
      model: options.model ?? 'unknown',
      authError: error.message,
    };
  }
}

/**
 * Checks options once before sessions are opened from them later (`agentpipe serve`): the
 * resume source exists, the schema compiles, the model settings are complete. Writes nothing.
 */
export async function checkSessionOptions(options: SessionOptions, log: (line: string) => void): Promise<void> {
  try {
    // A tape that cannot be read or options that do not go with it: said at the start, not at the first client.
    if (options.record !== undefined || options.replay !== undefined)
      (await import('./tape.ts')).prepareTape(options, log);
    if (options.resume || options.continue) await prepareSession({ ...options, persistSession: false }, log);
    if (options.outputFormat) await compileSchema(options.outputFormat.schema);
    const wrapped = options.harness !== undefined && options.harness !== 'agentpipe' ? options.harness : undefined;
    // `agentpipe serve --harness codex` without codex installed: said at the start, not at the first client.
    if (wrapped)
      await (
        await import('../harness/index.ts')
      ).harnessCommand(wrapped, options.harnessCommand, options.env ?? process.env);
    else if (!options.apiKeyHelper) await resolveModel(options);
  } catch (error) {
    if (!MissingCredentialsError.isInstance(error)) throw new SessionSetupError(errorMessage(error));
  }
}

export { setupErrorResult } from './error-result.ts';
export { SessionSetupError } from './create.ts';
