/**
 * `agentpipe acp`: an Agent Client Protocol agent over stdio (`@agentclientprotocol/sdk`,
 * imported lazily). Every session is a query() whose stream goes through the ACP projection.
 */
import { Readable, Writable } from 'node:stream';
import { newUuid } from '../messages/ids.ts';
import type { PermissionMode } from '../messages/types.ts';
import type { QueryOptions } from '../sdk/types.ts';
import { VERSION } from '../version.ts';
import { AcpSession, type AcpPeer } from './session.ts';
import { MODES, mcpServersOf, stopReasonOf } from './convert.ts';
import { replayUpdates } from './replay.ts';

export async function serveAcp(base: QueryOptions, log: (line: string) => void): Promise<void> {
  const acp = await import('@agentclientprotocol/sdk');
  const { RequestError } = acp;
  const sessions = new Map<string, AcpSession>();
  let client: AcpPeer | undefined;
  const peer: AcpPeer = {
    update: (sessionId, update) => client!.update(sessionId, update),
    requestPermission: (params) => client!.requestPermission(params),
  };
  const modes = (current: PermissionMode) => ({ currentModeId: current, availableModes: MODES });
  const find = (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  const open = (cwd: string, mcpServers: unknown, sessionId = newUuid()) => {
    if (!cwd.startsWith('/')) throw RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
    const servers = mcpServersOf(mcpServers as Array<Record<string, unknown>>);
    const session = new AcpSession(sessionId, { ...base, cwd, ...(servers ? { mcpServers: { ...base.mcpServers, ...servers } } : {}) }, peer);
    sessions.set(session.id, session);
    return session;
  };

  const app = acp.agent({ name: 'agentpipe' })
    .onConnect((connection) => {
      client = {
        update: (sessionId, update) => connection.client.notify('session/update', { sessionId, update } as never),
        requestPermission: (params) => connection.client.request('session/request_permission', params as never) as never,
      };
    })
    .onRequest('initialize', () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { list: {} },
      },
      authMethods: [],
      agentInfo: { name: 'agentpipe', title: 'agentpipe', version: VERSION },
    }))
    .onRequest('authenticate', () => ({}))
    .onRequest('session/new', ({ params }) => {
      const session = open(params.cwd, params.mcpServers);
      return { sessionId: session.id, modes: modes(session.mode) };
    })
    .onRequest('session/load', async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.resourceNotFound(params.sessionId);
      for (const update of replayUpdates(session.log)) await peer.update(session.id, update);
      return { modes: modes(session.mode) };
    })
    .onRequest('session/list', ({ params }) => ({
      sessions: [...sessions.values()]
        .filter((s) => !params.cwd || s.cwd === params.cwd)
        .map((s) => ({ sessionId: s.id, cwd: s.cwd, title: s.title ?? null, updatedAt: s.updatedAt })),
    }))
    .onRequest('session/set_mode', async ({ params }) => {
      const session = find(params.sessionId);
      if (!MODES.some((m) => m.id === params.modeId)) throw RequestError.invalidParams({ modeId: params.modeId }, `unknown mode; expected one of ${MODES.map((m) => m.id).join(', ')}`);
      await session.setMode(params.modeId as PermissionMode);
      await peer.update(session.id, { sessionUpdate: 'current_mode_update', currentModeId: params.modeId });
      return {};
    })
    .onRequest('session/prompt', async ({ params }) => {
      const session = find(params.sessionId);
      const result = await session.prompt(params.prompt);
      const stopReason = stopReasonOf(result);
      if (!stopReason) throw RequestError.internalError({ subtype: result.subtype }, result.is_error ? result.errors.join('; ') : 'the prompt failed');
      return { stopReason };
    })
    .onNotification('session/cancel', async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    });

  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  log('agentpipe: ACP agent ready on stdio');
  await connection.closed;
  for (const session of sessions.values()) session.close();
}
