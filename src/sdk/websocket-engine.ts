/**
 * The remote engine of `query()` (`options.connect`): a session of an `agentpipe serve` on its WebSocket, the same
 * stream-json lines as on stdio (protocol-engine.ts), with the server's token as `Authorization: Bearer` (given, or
 * the `?token=` of the URL serve printed). The session runs on the server, with the server's model and flags.
 */
import { errorMessage } from '../process/errors.ts';
import type WebSocket from 'ws';
import { frameLines } from '../messages/ndjson.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { socketWriter } from '../pipeline/socket-writer.ts';
import { startLineEngine, type LineTransport } from './protocol-engine.ts';
import type { ConnectOptions, Engine, PromptMessage, QueryOptions } from './types.ts';

/** The server's keep-alive line: not a message. */
const KEEP_ALIVE = /^\{"type":"keep_alive"/;

/** Lines over one WebSocket connection to `serve`. */
class WebSocketLines implements LineTransport {
  readonly #ws: WebSocket;
  readonly #incoming = new AsyncMessageQueue<string>({ highWaterMark: 1 << 20 });
  readonly #closed = new AbortController();
  readonly #write: (text: string) => Promise<void>;
  #inputEnded = false;
  /** Why the connection ended, when it was not a normal close. */
  failure: Error | undefined;

  constructor(ws: WebSocket) {
    this.#ws = ws;
    this.#write = socketWriter(ws, this.#closed.signal);
    ws.on('message', (data: Buffer) => {
      for (const line of frameLines(data.toString('utf8')))
        if (line && !KEEP_ALIVE.test(line)) void this.#incoming.push(line);
    });
    ws.on('close', (code, reason) => {
      if (code !== 1000 && code !== 1005)
        this.failure = new Error(
          `the server closed the connection (${code}${reason.length ? `: ${reason.toString()}` : ''})`,
        );
      this.#closed.abort();
      this.#incoming.done();
    });
    ws.on('error', (error) => {
      this.failure ??= new Error(`the connection failed: ${errorMessage(error)}`);
    });
  }

  get writable(): boolean {
    return !this.#inputEnded && this.#ws.readyState === this.#ws.OPEN;
  }

  async send(value: object): Promise<boolean> {
    if (!this.writable) return false;
    await this.#write(`${JSON.stringify(value)}\n`);
    return true;
  }

  lines(): AsyncIterable<string> {
    return this.#incoming;
  }

  endInput(): void {
    if (this.#inputEnded) return;
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send('{"type":"end_input"}\n');
    this.#inputEnded = true;
  }

  async close(): Promise<void> {
    this.#inputEnded = true;
    if (this.#ws.readyState === this.#ws.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.#ws.once('close', () => resolve()));
    this.#ws.close(1000);
    await closed;
  }
}

/** The URL to dial and the token to send: the given one, else the URL's `?token=` (kept out of the URL sent). */
function target(connect: ConnectOptions): { url: string; token: string | undefined } {
  const url = new URL(connect.url);
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:')
    throw new Error(`connect: ${connect.url} is not a ws:// or wss:// URL (agentpipe serve prints its URL)`);
  const token = connect.token ?? (url.searchParams.get('token') || undefined);
  url.searchParams.delete('token');
  return { url: url.toString(), token };
}

/** Connects to the server and runs the protocol on the connection; rejects when it cannot connect. */
export async function startRemote(
  prompt: string | AsyncIterable<PromptMessage>,
  options: QueryOptions & { connect: ConnectOptions },
): Promise<Engine> {
  const { url, token } = target(options.connect);
  const { default: WS } = await import('ws');
  const ws = new WS(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => {
      const why = res.statusCode === 401 ? ': the token is missing or wrong' : '';
      reject(new Error(`connect: ${url} refused the connection (HTTP ${res.statusCode}${why})`));
      res.resume();
      ws.terminate();
    });
    ws.once('error', (error) => reject(new Error(`connect: cannot reach ${url}: ${errorMessage(error)}`)));
  });
  const transport = new WebSocketLines(ws);
  return startLineEngine(prompt, options, transport, {
    gone: 'the server closed the connection',
    failure: (results) => Promise.resolve(results === 0 ? transport.failure : undefined),
  });
}
