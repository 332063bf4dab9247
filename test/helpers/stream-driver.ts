/** Drives the real CLI over stream-json: write lines, wait for lines, send control requests. */
import type { ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import { startCli } from './cli.ts';

export type Line = Record<string, any>;

export class StreamDriver {
  readonly child: ChildProcess;
  readonly lines: Line[] = [];
  #waiters: Array<{ test: (l: Line) => boolean; resolve: (l: Line) => void }> = [];
  #next = 0;

  constructor(args: string[], cwd: string, env: Record<string, string> = {}) {
    this.child = startCli(['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args], {
      cwd,
      env,
    });
    // A test that fails before end() must not leave the CLI running (its open stdin would keep
    // the test file, and CI, waiting forever).
    after(() => {
      if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    });
    let buffer = '';
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n')) !== -1) {
        const line = JSON.parse(buffer.slice(0, at)) as Line;
        buffer = buffer.slice(at + 1);
        this.lines.push(line);
        this.#waiters = this.#waiters.filter((w) => (w.test(line) ? (w.resolve(line), false) : true));
      }
    });
  }

  /** Resolves with the first line (already seen from `from` on, or future) that passes `test`. */
  waitFor(test: (l: Line) => boolean, from = 0): Promise<Line> {
    const seen = this.lines.slice(from).find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }

  send(line: Line): void {
    this.child.stdin!.write(JSON.stringify(line) + '\n');
  }

  /** Sends a user prompt and resolves with its result. */
  async prompt(content: string, uuid?: string): Promise<Line> {
    const from = this.lines.length;
    this.send({
      type: 'user',
      message: { role: 'user', content },
      parent_tool_use_id: null,
      session_id: '',
      ...(uuid ? { uuid } : {}),
    });
    return this.waitFor((l) => l.type === 'result', from);
  }

  /** Sends a control request and resolves with its response (`subtype` success or error). */
  async control(request: Line): Promise<Line> {
    const id = `test_${++this.#next}`;
    this.send({ type: 'control_request', request_id: id, request });
    const line = await this.waitFor((l) => l.type === 'control_response' && l.response.request_id === id);
    return line.response;
  }

  /** Closes stdin and resolves with the exit code. */
  end(): Promise<number | null> {
    this.child.stdin!.end();
    return new Promise((resolve) => this.child.on('close', resolve));
  }
}
