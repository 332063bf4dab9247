/**
 * A JSON-RPC client of an app-server (agentpipe's or the real codex's) over stdio or a WebSocket,
 * for the tests: it records every frame the server sends, validates each against the pinned codex
 * JSON Schema when asked, answers the server's requests with `answer`, and waits for frames by
 * predicate (never for time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import WebSocket from 'ws';
import { AGENTPIPE } from './helpers.ts';
import { frameErrors } from './app-server-schema.ts';

export type Frame = Record<string, any>;

export class AppServerClient {
  /** Every frame the server sent, in order. */
  readonly frames: Frame[] = [];
  /** Frames that did not validate against the schema (with `validate`). */
  readonly schemaErrors: string[] = [];
  /** The answer to each request of the server (default: accept). */
  answer: (request: Frame) => unknown = (request) =>
    request.method === 'mcpServer/elicitation/request'
      ? { action: 'accept', content: null, _meta: null }
      : { decision: 'accept' };
  stderr = '';
  readonly #send: (text: string) => void;
  readonly #closeTransport: () => Promise<void>;
  readonly #methods = new Map<number, string>();
  readonly #pending = new Map<number, (frame: Frame) => void>();
  readonly #waiters: Array<{ from: number; match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  readonly #validate: boolean;
  #nextId = 1;

  private constructor(send: (text: string) => void, close: () => Promise<void>, validate: boolean) {
    this.#send = send;
    this.#closeTransport = close;
    this.#validate = validate;
  }

  /** `agentpipe app-server <args>` (or `command`) on stdio. */
  static stdio(o: {
    args?: string[];
    command?: string[];
    cwd: string;
    env: Record<string, string>;
    validate?: boolean;
  }): AppServerClient {
    const [file, ...rest] = o.command ?? [AGENTPIPE, 'app-server'];
    const child: ChildProcess = spawn(file!, [...rest, ...(o.args ?? [])], {
      cwd: o.cwd,
      env: o.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const client = new AppServerClient(
      (text) => child.stdin!.write(text),
      async () => {
        child.stdin!.end();
        await exited;
      },
      o.validate ?? true,
    );
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (client.stderr += d));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => client.#receive(line));
    return client;
  }

  /** A WebSocket connection to `url` (rejects when the server refuses the upgrade). */
  static async ws(url: string, headers: Record<string, string> = {}, validate = true): Promise<AppServerClient> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      socket.once('error', reject);
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const client = new AppServerClient(
      (text) => socket.send(text),
      async () => {
        socket.close();
        await closed;
      },
      validate,
    );
    socket.on('message', (data: Buffer) => {
      for (const line of data.toString('utf8').split('\n')) if (line.trim()) client.#receive(line);
    });
    return client;
  }

  #receive(line: string): void {
    const frame = JSON.parse(line) as Frame;
    this.frames.push(frame);
    if (this.#validate) {
      const answers =
        frame.method === undefined && typeof frame.id === 'number' ? this.#methods.get(frame.id) : undefined;
      this.schemaErrors.push(...frameErrors(frame, answers));
    }
    if (typeof frame.method === 'string' && frame.id !== undefined)
      this.#send(`${JSON.stringify({ id: frame.id, result: this.answer(frame) })}\n`);
    else if (frame.method === undefined && typeof frame.id === 'number') {
      this.#pending.get(frame.id)?.(frame);
      this.#pending.delete(frame.id);
    }
    const at = this.frames.length - 1;
    for (const w of [...this.#waiters])
      if (at >= w.from && w.match(frame)) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve(frame);
      }
  }

  /**
   * Sends a request (`envelope`: more fields of its envelope, such as `trace`); resolves with the response frame
   * (`result` or `error`).
   */
  request(method: string, params?: unknown, envelope: Record<string, unknown> = {}): Promise<Frame> {
    const id = this.#nextId++;
    this.#methods.set(id, method);
    const answer = new Promise<Frame>((resolve) => this.#pending.set(id, resolve));
    this.#send(`${JSON.stringify({ ...envelope, id, method, ...(params !== undefined ? { params } : {}) })}\n`);
    return answer;
  }

  /** Sends raw text (several lines, a malformed one…) as one write. */
  raw(text: string): void {
    this.#send(text);
  }

  /** Ids the next requests will carry (for raw batches). */
  reserveIds(methods: string[]): number[] {
    return methods.map((method) => {
      const id = this.#nextId++;
      this.#methods.set(id, method);
      return id;
    });
  }

  notify(method: string, params?: unknown): void {
    this.#send(`${JSON.stringify({ method, ...(params !== undefined ? { params } : {}) })}\n`);
  }

  /** initialize + initialized. */
  async initialize(name = 'agentpipe-test'): Promise<Frame> {
    const response = await this.request('initialize', { clientInfo: { name, title: null, version: '1.0.0' } });
    this.notify('initialized');
    return response;
  }

  /** The first frame from now on (or from `from`) that matches. */
  waitFor(match: (frame: Frame) => boolean, from = this.frames.length): Promise<Frame> {
    const found = this.frames.slice(from).find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ from, match, resolve }));
  }

  /** Waits for the `turn/completed` of `turnId`. */
  turnCompleted(turnId: string, from = 0): Promise<Frame> {
    return this.waitFor((f) => f.method === 'turn/completed' && f.params.turn.id === turnId, from);
  }

  /** The method of the request this client sent with `id`. */
  methodOf(id: number): string | undefined {
    return this.#methods.get(id);
  }

  /** Notifications and requests of the server with this method. */
  sent(method: string): Frame[] {
    return this.frames.filter((f) => f.method === method);
  }

  async close(): Promise<void> {
    await this.#closeTransport();
  }
}
