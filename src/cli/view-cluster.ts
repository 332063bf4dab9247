/**
 * `agentpipe view --redis <url>`: a live page of a cluster's sessions: the list, and any one of
 * them opened to watch its messages (its log replayed, then followed live). The page and its
 * WebSocket feed (view/cluster-feed.ts) are served like `view --live`: the token (given, from
 * AGENTPIPE_SERVE_TOKEN, or generated and printed in the URL), the Host and Origin checks. The
 * page only reads: nothing is written to Redis.
 */
import { errorMessage } from '../process/errors.ts';
import type http from 'node:http';
import type WebSocket from 'ws';
import { UsageError } from './options.ts';
import { serverToken } from './server-token.ts';
import { untilSignal } from './signals.ts';
import type { ViewFlags } from './view-command.ts';
import { openBrowser } from '../view/open-browser.ts';
import { pageHandler } from '../view/page-server.ts';

/** Checks `--allow-origin` values as `serve` does. */
export function checkOrigins(origins: string[]): string[] {
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin === 'null')
      throw new UsageError(`--allow-origin ${origin}: give an origin such as https://app.example.com`);
  }
  return origins;
}

/** The page's URL (http, with the token when one is needed), printed on stdout; opened on `--open`. */
export function announceClusterPage(
  url: string,
  token: string | undefined,
  open: boolean,
  log: (l: string) => void,
): string {
  const page = new URL(url.replace(/^ws:/, 'http:'));
  if (token) page.searchParams.set('token', token);
  const href = page.toString();
  log(`agentpipe view: the cluster's sessions on ${href} (Ctrl+C to stop)`);
  process.stdout.write(`${href}\n`);
  if (open) openBrowser(href);
  return href;
}

/**
 * The page of a cluster and its feeds, for a WebSocket server's handlers; undefined (said on `log`) when Redis cannot
 * be reached.
 */
export async function clusterPage(
  redis: string,
  canStart: boolean,
  log: (line: string) => void,
): Promise<
  | {
      httpHandler: http.RequestListener;
      isFeed(req: http.IncomingMessage): boolean;
      serve(ws: WebSocket, req: http.IncomingMessage, id: number): Promise<void>;
      close(): Promise<void>;
    }
  | undefined
> {
  const { ClusterClient } = await import('../cluster/session-client.ts');
  const { RedisConnectionError } = await import('../cluster/connection.ts');
  let client;
  try {
    client = await ClusterClient.open({ redis, log });
  } catch (error) {
    if (!RedisConnectionError.isInstance(error)) throw error;
    log(`agentpipe view: error: ${error.message}`);
    return undefined;
  }
  const { isFeedPath, serveFeed } = await import('../view/cluster-feed.ts');
  let httpHandler;
  try {
    httpHandler = await pageHandler({ mode: 'cluster', title: client.where, canStart });
  } catch (error) {
    await client.close();
    throw new UsageError(errorMessage(error));
  }
  const feed = { client, log };
  return {
    httpHandler,
    isFeed: isFeedPath,
    serve: (ws, req, id) => serveFeed(feed, ws, req, id),
    close: () => client.close(),
  };
}

export async function runClusterView(
  flags: ViewFlags & { redis: string },
  log: (line: string) => void,
): Promise<number> {
  const { token } = serverToken(flags, log);
  const allowOrigins = checkOrigins(flags.allowOrigin ?? []);
  const page = await clusterPage(flags.redis, false, log);
  if (!page) return 1;
  const { startWebSocketServer } = await import('../transport/websocket-server.ts');
  const { maxLineFromEnv } = await import('../messages/ndjson.ts');
  const server = await startWebSocketServer({
    port: flags.port,
    host: flags.host,
    token,
    allowOrigins,
    options: {},
    log,
    maxPayload: maxLineFromEnv(),
    httpHandler: page.httpHandler,
    connectionHandler: async (ws, req, id) => {
      if (page.isFeed(req)) return page.serve(ws, req, id);
      ws.close(1008, 'this page only reads the cluster: connect to /sessions or /watch?session=<id>');
    },
    sessionIdFor: () => undefined,
  });
  announceClusterPage(server.url, token, flags.open === true, log);
  await untilSignal();
  log('agentpipe view: stopping');
  await server.close();
  await page.close();
  return 0;
}
