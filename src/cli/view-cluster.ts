/**
 * `agentpipe view --redis <url>`: a live page of a cluster's sessions: the list, and any one of
 * them opened to watch its messages (its log replayed, then followed live). The page and its
 * WebSocket feed (view/cluster-feed.ts) are served like `view --live`: the token (given, from
 * AGENTPIPE_SERVE_TOKEN, or generated and printed in the URL), the Host and Origin checks. The
 * page only reads: nothing is written to Redis.
 */
import { UsageError } from './options.ts';
import { serverToken } from './serve.ts';
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

export async function runClusterView(
  flags: ViewFlags & { redis: string },
  log: (line: string) => void,
): Promise<number> {
  const { token } = serverToken(flags);
  const allowOrigins = checkOrigins(flags.allowOrigin ?? []);
  const { ClusterClient } = await import('../cluster/session-client.ts');
  const { RedisConnectionError } = await import('../cluster/connection.ts');
  let client;
  try {
    client = await ClusterClient.open({ redis: flags.redis, log });
  } catch (error) {
    if (!(error instanceof RedisConnectionError)) throw error;
    log(`agentpipe view: error: ${error.message}`);
    return 1;
  }
  const { isFeedPath, serveFeed } = await import('../view/cluster-feed.ts');
  const { startWebSocketServer } = await import('../transport/websocket-server.ts');
  const { maxLineFromEnv } = await import('../transport/ndjson.ts');
  let handler;
  try {
    handler = await pageHandler({ mode: 'cluster', title: client.where });
  } catch (error) {
    await client.close();
    throw new UsageError((error as Error).message);
  }
  const feed = { client, log };
  const server = await startWebSocketServer({
    port: flags.port,
    host: flags.host,
    token,
    allowOrigins,
    options: {},
    log,
    maxPayload: maxLineFromEnv(),
    httpHandler: handler,
    connectionHandler: async (ws, req, id) => {
      if (isFeedPath(req)) return serveFeed(feed, ws, req, id);
      ws.close(1008, 'this page only reads the cluster: connect to /sessions or /watch?session=<id>');
    },
  });
  announceClusterPage(server.url, token, flags.open === true, log);
  await untilSignal();
  log('agentpipe view: stopping');
  await server.close();
  await client.close();
  return 0;
}
