/**
 * `agentpipe acp`: an Agent Client Protocol agent over stdio (`@agentclientprotocol/sdk`,
 * imported lazily). Every session is a query() whose stream goes through the ACP projection,
 * saved as a transcript like every session: `session/list` lists the saved sessions of a
 * folder, `session/load` resumes one and replays it, `session/resume` resumes it silently.
 */
import { errorMessage } from '../process/errors.ts';
import path from 'node:path';
import { newUuid } from '../messages/ids.ts';
import type { McpServer } from '@agentclientprotocol/sdk';
import type { PermissionMode } from '../messages/types.ts';
import type { QueryOptions } from '../sdk/types.ts';
import { VERSION } from '../version.ts';
import { AcpSession, type AcpPeer } from './session.ts';
import { MODES, promptUsageOf, stopReasonOf } from './convert.ts';
import { mcpServersOf } from './mcp-servers.ts';
import { holdUntilInitialized } from './pipelined.ts';
import { acpStdioStream } from './stdio-stream.ts';
import { maxLineFromEnv } from '../messages/ndjson.ts';
import { replayUpdates } from './replay.ts';
import { readSavedSession, savedSessions, type SavedSession, type SessionInfo } from './saved.ts';
import { errorsOf } from '../messages/result-errors.ts';
import { isRecord } from '../process/guards.ts';

type AcpModule = typeof import('@agentclientprotocol/sdk');

export async function serveAcp(base: QueryOptions, log: (line: string) => void): Promise<void> {
  const acp = await import('@agentclientprotocol/sdk');
  const { RequestError } = acp;
  let client: AcpPeer | undefined;
  const peer: AcpPeer = {
    update: (sessionId, update) => client!.update(sessionId, update),
    requestPermission: (params) => client!.requestPermission(params),
  };
  if (base.telemetry) flushOnSigterm();
  const modes = (current: PermissionMode) => ({ currentModeId: current, availableModes: MODES });
  const table = sessionTable(acp, base, peer, log);
  const { sessions, find, absolute, open, reopen } = table;

  const app = acp
    .agent({ name: 'agentpipe' })
    .onConnect((connection) => {
      client = {
        update: (sessionId, update) => connection.client.notify('session/update', { sessionId, update } as never),
        requestPermission: (params) =>
          connection.client.request('session/request_permission', params as never) as never,
      };
    })
    .onRequest('initialize', () => initializeResponse(acp.PROTOCOL_VERSION))
    .onRequest('authenticate', () => ({}))
    .onRequest('session/new', async ({ params }) => {
      absolute(params.cwd);
      const session = await open(params.cwd, params.mcpServers);
      return { sessionId: session.id, modes: modes(session.mode) };
    })
    .onRequest('session/load', async ({ params }) => {
      const session = await reopen(params);
      for (const update of replayUpdates(session.log)) await peer.update(session.id, update);
      return { modes: modes(session.mode) };
    })
    .onRequest('session/resume', async ({ params }) => {
      const session = await reopen(params);
      return { modes: modes(session.mode) };
    })
    .onRequest('session/close', ({ params }) => {
      find(params.sessionId).close();
      sessions.delete(params.sessionId);
      return {};
    })
    .onRequest('session/list', async ({ params }) => ({ sessions: await table.list(params.cwd ?? undefined) }))
    .onRequest('session/set_mode', async ({ params }) => {
      const session = find(params.sessionId);
      if (!MODES.some((m) => m.id === params.modeId))
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode; expected one of ${MODES.map((m) => m.id).join(', ')}`,
        );
      await session.setMode(params.modeId as PermissionMode);
      await peer.update(session.id, { sessionUpdate: 'current_mode_update', currentModeId: params.modeId });
      return {};
    })
    .onRequest('session/prompt', async ({ params }) => {
      const session = find(params.sessionId);
      const result = await session.prompt(params.prompt, traceOf(params._meta));
      const stopReason = stopReasonOf(result);
      if (!stopReason)
        throw RequestError.internalError(
          { subtype: result.subtype },
          result.is_error ? errorsOf(result).join('; ') : 'the prompt failed',
        );
      return { stopReason, usage: promptUsageOf(result) };
    })
    .onNotification('session/cancel', async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    });

  const stream = holdUntilInitialized(
    acpStdioStream(process.stdin, process.stdout, { maxLine: maxLineFromEnv(), log }),
  );
  const connection = app.connect(stream);
  log('agentpipe: ACP agent ready on stdio');
  await connection.closed;
  for (const session of sessions.values()) session.close();
  // The sessions close without waiting; their telemetry is sent before the process ends.
  if (base.telemetry) await (await import('../telemetry/load.ts')).shutdownTelemetry();
}

/** What `initialize` answers: the protocol version and what this agent can do. */
function initializeResponse(protocolVersion: number) {
  return {
    protocolVersion,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    authMethods: [],
    agentInfo: { name: 'agentpipe', title: 'agentpipe', version: VERSION },
  };
}

/** The server's live sessions: opened, found, resumed from their transcripts, and listed with the saved ones. */
function sessionTable(acp: AcpModule, base: QueryOptions, peer: AcpPeer, log: (line: string) => void) {
  const { RequestError } = acp;
  const sessions = new Map<string, AcpSession>();
  const env = base.env ?? process.env;
  const find = (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  const absolute = (cwd: string) => {
    if (typeof cwd !== 'string' || !path.isAbsolute(cwd))
      throw RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
  };
  const open = async (
    cwd: string,
    mcpServers: McpServer[] | undefined,
    sessionId: string = newUuid(),
    saved?: SavedSession,
  ) => {
    let servers: Awaited<ReturnType<typeof mcpServersOf>>;
    try {
      servers = await mcpServersOf(mcpServers);
    } catch (error) {
      throw RequestError.invalidParams({ mcpServers }, `invalid mcpServers: ${errorMessage(error)}`);
    }
    const session = new AcpSession(
      sessionId,
      { ...base, cwd, ...(servers ? { mcpServers: { ...base.mcpServers, ...servers } } : {}) },
      peer,
      saved,
    );
    sessions.set(session.id, session);
    return session;
  };
  /** The live session, or the saved session of `cwd` resumed from its transcript. */
  const reopen = async (params: { sessionId: string; cwd: string; mcpServers?: McpServer[] }) => {
    absolute(params.cwd);
    const live = sessions.get(params.sessionId);
    if (live) return live;
    const saved = await readSavedSession(params.sessionId, params.cwd, env, log);
    if (!saved) throw RequestError.resourceNotFound(params.sessionId);
    return sessions.get(params.sessionId) ?? open(params.cwd, params.mcpServers, params.sessionId, saved);
  };
  /** Saved sessions, with this server's live ones (newer, or not written yet) over them; newest first. */
  const list = async (cwd: string | undefined): Promise<SessionInfo[]> => {
    if (cwd) absolute(cwd);
    const byId = new Map<string, SessionInfo>((await savedSessions(cwd, env, log)).map((s) => [s.sessionId, s]));
    for (const s of sessions.values()) {
      if (cwd && s.cwd !== cwd) continue;
      const saved = byId.get(s.id);
      byId.set(s.id, {
        sessionId: s.id,
        cwd: s.cwd,
        title: s.title ?? saved?.title ?? null,
        updatedAt: saved && saved.updatedAt > s.updatedAt ? saved.updatedAt : s.updatedAt,
      });
    }
    return [...byId.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  };
  return { sessions, find, absolute, open, reopen, list };
}

/** The W3C trace context of a request's `_meta` (`traceparent`, `tracestate`), if it carries one. */
function traceOf(meta: unknown): { traceparent: string; tracestate?: string } | undefined {
  if (!isRecord(meta)) return undefined;
  const { traceparent, tracestate } = meta;
  if (typeof traceparent !== 'string') return undefined;
  return { traceparent, ...(typeof tracestate === 'string' ? { tracestate } : {}) };
}

/**
 * A client stops its agent with SIGTERM (agentpipe's ACP harness does, right after closing stdin), which would end the
 * process before the telemetry of its last prompt is sent: with telemetry on, SIGTERM sends it first (bounded), then
 * ends the process as SIGTERM would.
 */
function flushOnSigterm(): void {
  process.once('SIGTERM', () => {
    void import('../telemetry/load.ts')
      .then(({ shutdownTelemetry }) => shutdownTelemetry())
      .finally(() => process.exit(143));
  });
}
