/** Drives the real CLI over stream-json for control-request tests: send lines, await messages. */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCli } from '../helpers/cli.ts';

export class CliDriver {
  readonly child: ChildProcess;
  readonly lines: Array<Record<string, any>> = [];
  readonly closed: Promise<unknown>;
  /** Answers control requests the CLI sends (e.g. mcp_message); return the response payload. */
  onRequest?: (request: Record<string, any>) => Promise<Record<string, unknown>>;
  #buffer = '';
  #next = 0;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = startCli(
      ['-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', ...args],
      { env },
    );
    this.closed = new Promise((resolve) => this.child.on('close', resolve));
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.#buffer += d;
      for (let i = this.#buffer.indexOf('\n'); i >= 0; i = this.#buffer.indexOf('\n')) {
        const line = JSON.parse(this.#buffer.slice(0, i));
        this.#buffer = this.#buffer.slice(i + 1);
        this.lines.push(line);
        if (line.type === 'control_request' && this.onRequest) void this.#answer(line);
      }
    });
  }

  async #answer(line: Record<string, any>): Promise<void> {
    const response = await this.onRequest!(line.request);
    this.send({ type: 'control_response', response: { subtype: 'success', request_id: line.request_id, response } });
  }

  send(message: unknown): void {
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  prompt(text: string): void {
    this.send({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });
  }

  /** Sends a control request and returns its response (throws on an error response). */
  async control(request: Record<string, unknown>): Promise<Record<string, any>> {
    const id = `test-${++this.#next}`;
    this.send({ type: 'control_request', request_id: id, request });
    const line = await this.waitFor((m) => m.type === 'control_response' && m.response.request_id === id);
    if (line.response.subtype !== 'success') throw new Error(line.response.error);
    return line.response.response ?? {};
  }

  /** Waits for the nth (from `from`) line matching `match`. */
  async waitFor(
    match: (m: Record<string, any>) => boolean,
    from = 0,
    timeoutMs = 20_000,
  ): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.slice(from).find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting; got ${this.lines.map((l) => l.subtype ?? l.type).join(',')}`);
      await sleep(20);
    }
  }

  /** Closes stdin and waits for the exit. */
  async end(): Promise<void> {
    this.child.stdin!.end();
    await this.closed;
  }
}
