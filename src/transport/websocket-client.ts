/**
 * `--sdk-url ws://host:port/path`: the CLI connects out to the client's WebSocket server and
 * speaks stream-json over it. Output lines are numbered from 1 and kept until the client acks
 * them (`{"type":"keep_alive","ack":N}`, see ws-lines.ts). A dropped connection is redialled
 * with exponential backoff; on the new connection the CLI waits briefly for the client's ack,
 * then resends every line after it, so a client that acks what it got sees no loss and no
 * duplicate. Keep-alives (a line and a ping) go out every `keepAliveMs`.
 */
import Denque from 'denque';
import type WebSocket from 'ws';
import type { ParsedLine } from '../messages/parse.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { classifyLine, envInt, KEEP_ALIVE_LINE } from './ws-lines.ts';
import { frameLines } from '../messages/ndjson.ts';
import { sleep } from '../process/retry.ts';

export interface SdkUrlOptions {
  url: string;
  headers?: Record<string, string>;
  log(line: string): void;
  /** Heartbeat interval (ms; AGENTPIPE_WS_KEEPALIVE_MS, default 15000). */
  keepAliveMs?: number;
  /** Redials before giving up (AGENTPIPE_WS_MAX_RETRIES, default 8; backoff 250 ms doubling to 5 s). */
  maxRetries?: number;
  /** How long a new connection waits for the client's ack before resending (ms, default 1000). */
  ackWaitMs?: number;
  /** Unacknowledged lines kept for resending (default 10000; older ones are dropped with a warning). */
  maxUnacked?: number;
  /** Largest input frame (bytes). */
  maxPayload?: number;
}

const HIGH_WATER_BYTES = 1024 * 1024;

export class SdkUrlTransport {
  /** Parsed input messages; ends on `end_input`, a normal close by the client, or a lost connection. */
  readonly input = new AsyncMessageQueue<ParsedLine>({ highWaterMark: 1 << 30 });
  readonly #options: SdkUrlOptions;
  readonly #WebSocket: typeof WebSocket;
  readonly #gone = new AbortController();
  readonly #unacked = new Denque<{ seq: number; text: string }>();
  #ws?: WebSocket;
  #ready = false;
  #readyWaiters: Array<() => void> = [];
  #seq = 0;
  #acked = 0;
  #clientAcks = false;
  #onAck?: () => void;
  #connections = 0;
  #closing = false;
  #dropWarned = false;
  #timer?: NodeJS.Timeout;
  /** Set when the connection was lost for good. */
  failure?: Error;

  private constructor(WS: typeof WebSocket, options: SdkUrlOptions) {
    this.#WebSocket = WS;
    this.#options = options;
  }

  /** Connects (with retries); rejects when no connection could be made. */
  static async connect(options: SdkUrlOptions): Promise<SdkUrlTransport> {
    const { default: WS } = await import('ws');
    const transport = new SdkUrlTransport(WS, options);
    await transport.#dial(0);
    if (transport.failure) throw transport.failure;
    transport.#timer = setInterval(
      () => transport.#heartbeat(),
      options.keepAliveMs ?? envInt('AGENTPIPE_WS_KEEPALIVE_MS', 15_000),
    );
    transport.#timer.unref();
    return transport;
  }

  /** Aborted once the client is gone for good (closed normally, or every redial failed). */
  get signal(): AbortSignal {
    return this.#gone.signal;
  }

  /** Sends one line; resolves when the socket can take more (or, while redialling, once reconnected). */
  write(text: string): Promise<void> {
    this.#unacked.push({ seq: ++this.#seq, text });
    if (this.#unacked.length > (this.#options.maxUnacked ?? 10_000)) {
      this.#unacked.shift();
      if (!this.#dropWarned)
        this.#options.log(
          'agentpipe: warning: the --sdk-url client does not ack its lines; old lines can no longer be resent',
        );
      this.#dropWarned = true;
    }
    if (this.#gone.signal.aborted) return Promise.resolve();
    if (!this.#ready) return new Promise((resolve) => this.#readyWaiters.push(resolve));
    return this.#send(this.#ws!, text);
  }

  /** Waits (up to `waitMs`) until the client acked everything, then closes normally. */
  async close(waitMs = 5000): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (!this.#gone.signal.aborted && Date.now() < deadline) {
      const ws = this.#ws;
      const flushed = this.#ready && ws !== undefined && ws.bufferedAmount === 0;
      if (flushed && (!this.#clientAcks || this.#unacked.length === 0)) break;
      await sleep(20);
    }
    this.#closing = true;
    clearInterval(this.#timer);
    const ws = this.#ws;
    if (ws && ws.readyState === ws.OPEN) {
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close(1000, 'session ended');
        setTimeout(resolve, 1000).unref();
      });
    }
    this.#finish();
  }

  #send(ws: WebSocket, text: string): Promise<void> {
    if (ws.bufferedAmount < HIGH_WATER_BYTES) {
      ws.send(text);
      return Promise.resolve();
    }
    return new Promise((resolve) => ws.send(text, () => resolve()));
  }

  /** One connection attempt after `attempt` failures; resolves once open (or given up). */
  #dial(attempt: number): Promise<void> {
    return new Promise((resolve) => {
      const ws = new this.#WebSocket(this.#options.url, {
        headers: this.#options.headers,
        maxPayload: this.#options.maxPayload,
      });
      let opened = false;
      ws.on('open', () => {
        opened = true;
        this.#ws = ws;
        void this.#onOpen(ws).then(resolve);
      });
      ws.on('message', (data) => this.#onMessage(data));
      ws.on('pong', () => ((ws as WebSocket & { alive?: boolean }).alive = true));
      ws.on('error', (error) => this.#options.log(`agentpipe: --sdk-url ${this.#options.url}: ${error.message}`));
      ws.on('close', (code) => {
        if (this.#ws === ws) this.#ready = false;
        if (this.#closing || this.#gone.signal.aborted) return resolve();
        if (opened && code === 1000) {
          this.#options.log('agentpipe: the --sdk-url client closed the connection; stopping');
          this.#finish();
          return resolve();
        }
        const next = opened ? 0 : attempt + 1;
        const maxRetries = this.#options.maxRetries ?? envInt('AGENTPIPE_WS_MAX_RETRIES', 8);
        if (next > maxRetries) {
          this.failure = new Error(
            `could not reach the --sdk-url client at ${this.#options.url} after ${maxRetries} retries`,
          );
          this.#options.log(`agentpipe: error: ${this.failure.message}`);
          this.#finish();
          return resolve();
        }
        const delay = Math.min(250 * 2 ** Math.max(0, next - 1), 5000);
        if (opened) this.#options.log(`agentpipe: --sdk-url connection lost (code ${code}); reconnecting`);
        setTimeout(() => void this.#dial(next).then(resolve), opened ? 0 : delay);
      });
    });
  }

  async #onOpen(ws: WebSocket): Promise<void> {
    (ws as WebSocket & { alive?: boolean }).alive = true;
    if (this.#connections++ > 0) {
      // A reconnect: let the client say what it has, then resend the rest in order.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#options.ackWaitMs ?? 1000);
        this.#onAck = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#onAck = undefined;
      if (ws.readyState !== ws.OPEN) return;
      for (const item of this.#unacked.toArray()) if (item.seq > this.#acked) ws.send(item.text);
    }
    this.#ready = true;
    for (const wake of this.#readyWaiters.splice(0)) wake();
  }

  #onMessage(data: WebSocket.RawData): void {
    for (const line of frameLines(data)) {
      const input = classifyLine(line);
      if (input.kind === 'ack') {
        this.#clientAcks = true;
        this.#acked = Math.max(this.#acked, input.ack);
        while (this.#unacked.length > 0 && this.#unacked.peekFront()!.seq <= this.#acked) this.#unacked.shift();
        this.#onAck?.();
      } else if (input.kind === 'end_input') this.input.done();
      else void this.input.push(input.parsed);
    }
  }

  #heartbeat(): void {
    const ws = this.#ws as (WebSocket & { alive?: boolean }) | undefined;
    if (!this.#ready || !ws || ws.readyState !== ws.OPEN) return;
    if (!ws.alive) return void ws.terminate();
    ws.alive = false;
    ws.ping();
    void this.write(KEEP_ALIVE_LINE);
  }

  #finish(): void {
    clearInterval(this.#timer);
    this.input.done();
    this.#gone.abort();
    for (const wake of this.#readyWaiters.splice(0)) wake();
  }
}
