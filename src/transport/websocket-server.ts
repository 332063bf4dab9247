/**
 * `agentpipe serve`: a WebSocket server where each connection is one stream-json session
 * (same lines as stdio; see ws-lines.ts for `end_input` and `keep_alive`). Host, Origin and
 * token are checked (access.ts) on every request: a refused upgrade gets its status before any
 * session exists. Every
 * connection has its own bounded queue and waits on its own socket's send callbacks, so a
 * client that stops reading pauses only its own session.
 *
 * The upgrade response names the connection's session in `X-Agentpipe-Session-Id` (not for a
 * resumed session: its id is the transcript's), so a client knows it before the first message.
 */
import { errorMessage } from '../process/errors.ts';
import { atMost } from '../process/retry.ts';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { ParsedLine } from '../messages/parse.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { socketWriter } from '../pipeline/socket-writer.ts';
import type { SessionOptions } from '../session/options.ts';
import { runStreamSession } from '../session/serve-session.ts';
import { listen } from './listen.ts';
import { checkAccess, type AccessPolicy, type Refusal } from './access.ts';
import { classifyLine, envInt, KEEP_ALIVE_LINE } from './ws-lines.ts';
import { frameLines } from '../messages/ndjson.ts';

export interface WebSocketServerOptions {
  port: number;
  host: string;
  /** Required from every client when set (see access.ts for how it is carried). */
  token?: string;
  /** Browser origins allowed besides the server's own pages (`--allow-origin`). */
  allowOrigins?: string[];
  /** Options of every session (each gets its own session id). */
  options: SessionOptions;
  log: (line: string) => void;
  replayUserMessages?: boolean;
  permissionPromptTool?: string;
  maxPayload?: number;
  /** Bytes a socket may buffer before its session waits (default 1 MiB). */
  highWaterBytes?: number;
  /** Heartbeat interval (ms; AGENTPIPE_WS_KEEPALIVE_MS, default 15000). */
  keepAliveMs?: number;
  /**
   * Send the `keep_alive` line with each heartbeat's ping (default true); false for protocols where every frame must
   * be one of theirs (`app-server`: JSON-RPC only).
   */
  keepAliveLine?: boolean;
  /** Answers plain HTTP requests (the viewer page of `serve --ui`); default: 426 Upgrade Required. */
  httpHandler?: http.RequestListener;
  /**
   * Serves a connection instead of running a session here (`serve --redis`: the cluster's front end); resolves when it
   * closed.
   */
  connectionHandler?: (ws: WebSocket, req: http.IncomingMessage, id: number, sessionId?: string) => Promise<void>;
  /** The session id a connection gets, told in the upgrade response (default: a fresh one, none when resuming). */
  sessionIdFor?: (req: http.IncomingMessage) => string | undefined;
}

/** The response header that names the connection's session. */
export const SESSION_ID_HEADER = 'X-Agentpipe-Session-Id';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A connection, with what the heartbeat knows: a pong seen, the bytes its client had taken at the last beat. */
type Client = WebSocket & { alive?: boolean; tcp?: { bytesWritten: number }; taken?: number };

/** Input lines a connection holds before it stops reading its socket (backpressure on a client that floods). */
const INPUT_HIGH_WATER = 1024;

export async function startWebSocketServer(o: WebSocketServerOptions): Promise<RunningServer> {
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayload });
  const policy: AccessPolicy = { host: o.host, port: o.port, token: o.token, allowOrigins: o.allowOrigins };
  const server = httpServer(o, policy);
  const sessions = new Set<Promise<void>>();
  let connections = 0;
  const sessionIdFor = o.sessionIdFor ?? (() => (o.options.resume || o.options.continue ? undefined : randomUUID()));
  const assigned = new WeakMap<http.IncomingMessage, string>();
  // The session is chosen once ws accepted the handshake (it emits `headers` just before its 101): a request it
  // refuses (no key, a bad version) takes no session, a warm one included.
  wss.on('headers', (headers, req) => {
    const sessionId = sessionIdFor(req);
    if (!sessionId) return;
    assigned.set(req, sessionId);
    headers.push(`${SESSION_ID_HEADER}: ${sessionId}`);
  });
  server.on('upgrade', (req, socket, head) => {
    const refusal = checkAccess(req, policy, true);
    if (refusal) return refuse(socket, req, refusal, o.log);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const sessionId = assigned.get(req);
      const client = ws as Client;
      client.tcp = socket as Duplex & { bytesWritten: number };
      client.alive = true;
      client.on('pong', () => (client.alive = true));
      client.on('message', () => (client.alive = true));
      const id = ++connections;
      const done = o.connectionHandler
        ? o.connectionHandler(ws, req, id, sessionId)
        : serveConnection(client, id, req.socket.remoteAddress ?? '?', o, sessionId);
      sessions.add(done);
      void done.finally(() => sessions.delete(done));
    });
  });
  const heartbeat = setInterval(
    () => beat(wss.clients as Set<Client>, o.keepAliveLine !== false),
    o.keepAliveMs ?? envInt('AGENTPIPE_WS_KEEPALIVE_MS', 15_000),
  );
  heartbeat.unref();
  policy.port = await listen(server, o.port, o.host);
  const port = policy.port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `ws://${host}:${port}/`,
    port,
    async close() {
      clearInterval(heartbeat);
      for (const ws of wss.clients) ws.close(1001, 'server stopping');
      await atMost(Promise.allSettled([...sessions]), 3000);
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The HTTP server: a request the access policy refuses is answered with why; others go to the page handler. */
function httpServer(o: WebSocketServerOptions, policy: AccessPolicy): http.Server {
  const page =
    o.httpHandler ??
    ((_req, res) => {
      res
        .writeHead(426, { 'content-type': 'text/plain' })
        .end('agentpipe serve speaks WebSocket: connect with a WebSocket client\n');
    });
  return http.createServer((req, res) => {
    // The page itself shows and starts sessions: it needs the token too; its assets do not.
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const refusal = checkAccess(req, policy, path === '/' || path === '/index.html');
    if (refusal) {
      o.log(
        `agentpipe serve: refused ${req.method ?? 'a request'} from ${req.socket.remoteAddress ?? '?'}: ` +
          `${refusal.reason}`,
      );
      res.writeHead(refusal.status, { 'content-type': 'text/plain' }).end(`${refusal.reason}\n`);
      return;
    }
    page(req, res);
  });
}

/**
 * One heartbeat: each connection answered a ping since the last beat or is ended. A paused connection reads nothing,
 * its pongs included: it is alive while its client takes the answers it was sent (the session paused it because they
 * wait), or has taken them all.
 */
function beat(clients: Set<Client>, keepAliveLine: boolean): void {
  for (const ws of clients) {
    if (ws.isPaused) {
      const taken = ws.tcp?.bytesWritten ?? 0;
      if (ws.bufferedAmount > 0 && taken === ws.taken) ws.terminate();
      ws.taken = taken;
      continue;
    }
    ws.taken = undefined;
    if (ws.alive === false) {
      ws.terminate();
      continue;
    }
    ws.alive = false;
    ws.ping();
    if (keepAliveLine && ws.bufferedAmount === 0) ws.send(KEEP_ALIVE_LINE);
  }
}

function refuse(socket: Duplex, req: http.IncomingMessage, refusal: Refusal, log: (line: string) => void): void {
  log(`agentpipe serve: refused ${req.socket.remoteAddress ?? '?'}: ${refusal.reason}`);
  const body = `${refusal.reason}\n`;
  const status = { 401: 'Unauthorized', 403: 'Forbidden', 421: 'Misdirected Request' }[refusal.status];
  socket.end(
    `HTTP/1.1 ${refusal.status} ${status}\r\nContent-Type: text/plain\r\nContent-Length: ` +
      `${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** One connection = one session; ends when the input ends (end_input) or the socket closes. */
async function serveConnection(
  ws: Client,
  id: number,
  remote: string,
  o: WebSocketServerOptions,
  sessionId: string | undefined,
): Promise<void> {
  const input = new AsyncMessageQueue<ParsedLine>({ highWaterMark: INPUT_HIGH_WATER });
  const closed = new AbortController();
  ws.on('message', (data) => {
    let full: Promise<void> | undefined;
    for (const line of frameLines(data)) {
      const item = classifyLine(line);
      if (item.kind === 'end_input') input.done();
      else if (item.kind === 'message') full = input.push(item.parsed) ?? full;
    }
    // The session reads no faster than its client reads the answers: stop reading the socket until it catches up.
    if (full) {
      ws.pause();
      void full.then(() => ws.resume());
    }
  });
  ws.on('close', () => {
    input.done();
    closed.abort();
  });
  ws.on('error', (error) => o.log(`agentpipe serve: connection ${id}: ${error.message}`));
  const write = socketWriter(ws, closed.signal, o.highWaterBytes);
  try {
    await runStreamSession({
      options: { ...o.options, sessionId },
      input,
      write,
      signal: closed.signal,
      log: (line) => o.log(`${line} (connection ${id})`),
      replayUserMessages: o.replayUserMessages,
      permissionPromptTool: o.permissionPromptTool,
      onSession: (session) => o.log(`agentpipe serve: connection ${id} from ${remote}: session ${session.id}`),
    });
  } catch (error) {
    o.log(`agentpipe serve: connection ${id}: session failed: ${errorMessage(error)}`);
  }
  if (ws.readyState === ws.OPEN) ws.close(1000, 'session ended');
  o.log(`agentpipe serve: connection ${id} ended`);
}
