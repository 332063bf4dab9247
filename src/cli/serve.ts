/** `agentpipe serve`: checks the flags, starts the WebSocket server, runs until SIGINT/SIGTERM. */
import { errorMessage } from '../process/errors.ts';
import { maxLineFromEnv } from '../messages/ndjson.ts';
import type { SessionOptions } from '../session/options.ts';
import { UsageError, tapesForMany, sessionOptionsFromFlags, unsupportedFlagsGiven } from './options.ts';
import type { ServeFlags } from './serve-command.ts';
import { untilSignal } from './signals.ts';
import { serverToken } from './server-token.ts';

export async function serve(flags: ServeFlags, log: (line: string) => void): Promise<number> {
  const { token, generated } = serverToken(flags, log);
  if (flags.sessionId)
    throw new UsageError('--session-id cannot be used with serve: every connection is its own session');
  for (const name of unsupportedFlagsGiven(flags)) {
    log(
      `agentpipe: warning: --${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is accepted but not ` +
        `supported yet; it has no effect`,
    );
  }
  const allowOrigins = flags.allowOrigin ?? [];
  for (const origin of allowOrigins) {
    if (!URL.canParse(origin) || new URL(origin).origin === 'null')
      throw new UsageError(`--allow-origin ${origin}: give an origin such as https://app.example.com`);
  }
  const options = tapesForMany(await sessionOptionsFromFlags(flags), 'serve');
  if (flags.redis !== undefined) return serveCluster(flags, options, { token, generated, allowOrigins }, log);
  const { checkSessionOptions } = await import('../session/open.ts');
  try {
    await checkSessionOptions(options, log);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  if ((options.resume || options.continue) && !options.forkSession) {
    log(
      'agentpipe serve: every connection continues the resumed session, one at a time (a second connection ' +
        'while one is open is refused: one writer per session); add --fork-session to give each connection its ' +
        'own copy',
    );
  }
  const { startWebSocketServer } = await import('../transport/websocket-server.ts');
  const ui = flags.ui ? await (await import('./view-live.ts')).uiServerOptions() : {};
  const server = await startWebSocketServer({
    ...ui,
    port: flags.port,
    host: flags.host,
    token,
    allowOrigins,
    options,
    log,
    maxPayload: maxLineFromEnv(),
    // The page shows each prompt from its echo on the stream.
    replayUserMessages: flags.replayUserMessages || flags.ui === true,
    permissionPromptTool: flags.permissionPromptTool,
  });
  // A generated token is shown once, in the URL (as notebook servers do); a given one never.
  const url = generated && token ? `${server.url}?token=${token}` : server.url;
  const how = token
    ? generated
      ? 'token in the URL required'
      : 'token required'
    : 'no token (--no-token): any local process can connect';
  log(`agentpipe serve: listening on ${url} (${how})`);
  if (flags.ui) (await import('./view-live.ts')).announcePage(server, token, flags.open === true, log);
  await untilSignal();
  log('agentpipe serve: stopping');
  await server.close();
  return 0;
}

/** `serve --redis`: the cluster's front end (same token and origin rules); sessions run on the workers. */
async function serveCluster(
  flags: ServeFlags,
  options: SessionOptions,
  access: { token?: string; generated: boolean; allowOrigins: string[] },
  log: (line: string) => void,
): Promise<number> {
  const { CLUSTER_OWNED_OPTIONS } = await import('../cluster/jobs.ts');
  const owned = CLUSTER_OWNED_OPTIONS.filter((key) => options[key] !== undefined && options[key] !== false);
  if (owned.length)
    throw new UsageError(
      `serve --redis: ${owned.join(', ')} cannot be used: the cluster keeps each session (reconnect with ` +
        `?session=<id>)`,
    );
  const { ClusterFrontEnd } = await import('../cluster/front-end/front-end.ts');
  const { RedisConnectionError, warnIfPasswordless } = await import('../cluster/connection.ts');
  await warnIfPasswordless(flags.redis!, 'agentpipe serve', log);
  let front;
  try {
    front = await ClusterFrontEnd.open({
      redis: flags.redis!,
      options,
      log,
      stream: {
        // The page shows each prompt from its echo on the stream.
        replayUserMessages: flags.replayUserMessages || flags.ui === true,
        permissionPromptTool: flags.permissionPromptTool,
        awaitInitialize: flags.awaitInitialize === true,
      },
    });
  } catch (error) {
    if (!RedisConnectionError.isInstance(error)) throw error;
    log(`agentpipe serve: error: ${error.message}`);
    return 1;
  }
  // --ui: the cluster's page (its sessions, each watched live; new ones started through this front end).
  const page = flags.ui ? await (await import('./view-cluster.ts')).clusterPage(flags.redis!, true, log) : undefined;
  if (flags.ui && !page) {
    await front.close();
    return 1;
  }
  const { startWebSocketServer } = await import('../transport/websocket-server.ts');
  const server = await startWebSocketServer({
    port: flags.port,
    host: flags.host,
    token: access.token,
    allowOrigins: access.allowOrigins,
    options,
    log,
    maxPayload: maxLineFromEnv(),
    ...(page ? { httpHandler: page.httpHandler } : {}),
    connectionHandler: (ws, req, id, sessionId) =>
      page?.isFeed(req) ? page.serve(ws, req, id) : front.serveConnection(ws, req, id, sessionId),
    sessionIdFor: (req) => (page?.isFeed(req) ? undefined : front.sessionIdFor(req)),
  });
  const url = access.generated && access.token ? `${server.url}?token=${access.token}` : server.url;
  log(`agentpipe serve: listening on ${url} (front end of the cluster on Redis; sessions run on agentpipe workers)`);
  if (page) (await import('./view-cluster.ts')).announceClusterPage(server.url, access.token, flags.open === true, log);
  await untilSignal();
  log('agentpipe serve: stopping');
  await server.close();
  await Promise.all([front.close(), page?.close()]);
  return 0;
}
