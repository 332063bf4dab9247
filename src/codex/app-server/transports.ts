/**
 * The app-server's transports, as codex's `--listen`: `stdio://` (one connection: JSON lines on
 * stdin and stdout; the server stops when stdin closes) and `ws://HOST:PORT` (one connection per
 * WebSocket, one JSON-RPC message per text frame or line of a frame), through the WebSocket server
 * `agentpipe serve` uses: the Host, Origin and token checks of transport/access.ts come first.
 */
import { errorMessage } from '../../process/errors.ts';
import type WebSocket from 'ws';
import type http from 'node:http';
import { identify, nestedDeeper, tooDeepError } from '../../messages/json-limits.ts';
import { readLines } from '../../messages/ndjson.ts';
import { frameLines } from '../../messages/ndjson.ts';
import { stdoutWriter } from '../../pipeline/fd-writer.ts';
import { socketWriter } from '../../pipeline/socket-writer.ts';
import type { RunningServer } from '../../transport/websocket-server.ts';
import type { AppServer, Connection } from './server.ts';

/**
 * Hands one line of the client to the connection, parsed: a line that is not JSON is logged (codex's schema has no
 * `id: null` to answer it with), one nested deeper than the limit is refused before anything walks it.
 */
function receiveLine(connection: Connection, line: string): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    connection.peer.receive(undefined, errorMessage(error));
    return;
  }
  if (nestedDeeper(value)) connection.peer.refuse(identify(value, ''), tooDeepError());
  else connection.peer.receive(value);
}

/** Serves one connection on stdin and stdout until stdin closes. */
export async function serveStdio(server: AppServer, maxLine: number): Promise<void> {
  const writer = stdoutWriter();
  const connection = server.connect((frame) => writer.write(`${JSON.stringify(frame)}\n`));
  for await (const item of readLines(process.stdin, maxLine)) {
    if ('tooLong' in item)
      connection.peer.refuse(
        identify(undefined, item.head),
        `a line of ${item.tooLong} characters is over the limit of ${maxLine} (AGENTPIPE_MAX_INPUT_LINE)`,
      );
    else receiveLine(connection, item.line);
  }
  server.disconnect(connection);
  await server.close();
  await writer.flush();
}

/** Serves WebSocket connections on `host:port` with the access rules of `serve`. */
export async function serveWebSocket(
  server: AppServer,
  o: { host: string; port: number; token?: string; allowOrigins: string[]; maxPayload: number },
): Promise<RunningServer> {
  const { startWebSocketServer } = await import('../../transport/websocket-server.ts');
  return startWebSocketServer({
    port: o.port,
    host: o.host,
    token: o.token,
    allowOrigins: o.allowOrigins,
    options: server.options.base,
    log: server.log,
    maxPayload: o.maxPayload,
    keepAliveLine: false,
    sessionIdFor: () => undefined,
    httpHandler: (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(426, { 'content-type': 'text/plain' }).end('agentpipe app-server speaks JSON-RPC over WebSocket\n');
    },
    connectionHandler: (ws: WebSocket) => serveSocket(server, ws),
  });
}

/** One WebSocket connection, until it closes. */
function serveSocket(server: AppServer, ws: WebSocket): Promise<void> {
  const closed = new AbortController();
  const write = socketWriter(ws, closed.signal);
  const connection = server.connect((frame) => write(JSON.stringify(frame)));
  ws.on('message', (data) => {
    for (const line of frameLines(data)) receiveLine(connection, line);
  });
  ws.on('error', (error) => server.log(`agentpipe app-server: connection: ${error.message}`));
  return new Promise((resolve) => {
    ws.on('close', () => {
      closed.abort();
      server.disconnect(connection);
      resolve();
    });
  });
}
