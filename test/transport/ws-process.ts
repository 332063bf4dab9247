/**
 * A process-like object over a WebSocket to `agentpipe serve`, for the official SDK's
 * `spawnClaudeCodeProcess`: what the SDK writes to `stdin` goes to the socket (stdin's end
 * becomes `end_input`), the lines the server sends come out of `stdout` (minus the transport's
 * `keep_alive`), and the socket closing is the process exiting (code 1000 → exit code 0).
 */
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import WebSocket from 'ws';
import type { SpawnedProcess } from '@anthropic-ai/claude-agent-sdk';

export class WebSocketProcess extends EventEmitter implements SpawnedProcess {
  readonly stdin: Writable;
  readonly stdout = new PassThrough();
  readonly #ws: WebSocket;
  #killed = false;
  #exitCode: number | null = null;
  #signalCode: NodeJS.Signals | null = null;
  #pending = '';

  constructor(url: string, headers: Record<string, string> = {}) {
    super();
    const ws = new WebSocket(url, { headers });
    this.#ws = ws;
    const opened = new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('close', () => reject(new Error('the connection closed')));
    });
    opened.catch(() => {});
    const send = (data: string | Buffer, done: (error?: Error | null) => void) =>
      opened.then(
        () => ws.send(data, (error) => done(error ?? null)),
        (error: Error) => done(error),
      );
    this.stdin = new Writable({
      write: (chunk: Buffer, _encoding, done) => void send(chunk, done),
      final: (done) => void send('{"type":"end_input"}\n', done),
    });
    this.stdin.on('error', () => {}); // writes after the socket closed: the exit says it
    ws.on('message', (data) => this.#receive(data.toString()));
    ws.on('error', (error) => this.emit('error', error));
    ws.on('close', (code) => {
      this.stdout.end();
      if (this.#killed) this.#signalCode = 'SIGTERM';
      else this.#exitCode = code === 1000 ? 0 : 1;
      this.emit('exit', this.#exitCode, this.#signalCode);
    });
  }

  get killed(): boolean {
    return this.#killed;
  }

  get exitCode(): number | null {
    return this.#exitCode;
  }

  get signalCode(): NodeJS.Signals | null {
    return this.#signalCode;
  }

  kill(_signal?: NodeJS.Signals): boolean {
    if (this.#exitCode !== null || this.#signalCode !== null) return false;
    this.#killed = true;
    this.#ws.close(1000, 'killed by the client');
    return true;
  }

  #receive(text: string): void {
    this.#pending += text;
    const lines = this.#pending.split('\n');
    this.#pending = lines.pop()!;
    for (const line of lines) {
      if (!line.trim() || /^\{"type":"keep_alive"/.test(line)) continue;
      this.stdout.write(`${line}\n`);
    }
  }
}
