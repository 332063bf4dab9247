/** `agentpipe serve`: checks the flags, starts the WebSocket server, runs until SIGINT/SIGTERM. */
import { isIP } from 'node:net';
import { maxLineFromEnv } from '../transport/ndjson.ts';
import { UsageError, sessionOptionsFromFlags, unsupportedFlagsGiven } from './options.ts';
import type { ServeFlags } from './serve-command.ts';
import { untilSignal } from './signals.ts';

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

export async function serve(flags: ServeFlags, log: (line: string) => void): Promise<number> {
  const token = flags.token ?? process.env.AGENTPIPE_SERVE_TOKEN;
  if (!token && !isLoopback(flags.host)) {
    throw new UsageError(`refusing to serve on ${flags.host} without a token: anyone who can reach it could run tools here. Pass --token <secret> (or AGENTPIPE_SERVE_TOKEN), or bind to 127.0.0.1`);
  }
  if (flags.sessionId) throw new UsageError('--session-id cannot be used with serve: every connection is its own session');
  for (const name of unsupportedFlagsGiven(flags)) {
    log(`agentpipe: warning: --${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is accepted but not supported yet; it has no effect`);
  }
  const options = sessionOptionsFromFlags(flags);
  const { checkSessionOptions } = await import('../session/open.ts');
  try {
    await checkSessionOptions(options, log);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if ((options.resume || options.continue) && !options.forkSession) {
    log('agentpipe serve: every connection continues the resumed session in its one transcript (connections at the same time interleave there); add --fork-session to give each connection its own copy');
  }
  const { startWebSocketServer } = await import('../transport/websocket-server.ts');
  const ui = flags.ui ? await (await import('./view-live.ts')).uiServerOptions() : {};
  const server = await startWebSocketServer({
    ...ui, port: flags.port, host: flags.host, token, options, log, maxPayload: maxLineFromEnv(),
    replayUserMessages: flags.replayUserMessages, permissionPromptTool: flags.permissionPromptTool,
  });
  log(`agentpipe serve: listening on ${server.url} (${token ? 'token required' : 'loopback only, no token'})`);
  if (flags.ui) (await import('./view-live.ts')).announcePage(server, token, flags.open === true, log);
  await untilSignal();
  log('agentpipe serve: stopping');
  await server.close();
  return 0;
}
