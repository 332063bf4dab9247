/** The running ACP agent: its process group and the JSON-RPC connection over its stdio. */
import { Readable, Writable } from 'node:stream';
import { atMost, sleep } from '../../process/retry.ts';
import * as acp from '@agentclientprotocol/sdk';
import type {
  ClientConnection,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import { type FramedLine, LineSplitter, maxLineFromEnv } from '../../messages/ndjson.ts';
import { startProcessGroup, type RunningGroup } from '../../process/run.ts';
import type { HarnessConfig } from '../types.ts';
import { Aborted, AgentError, errorText, STOP_GRACE_MS } from './shared.ts';
import type { Terminals } from './terminals.ts';

/** Characters of the agent's stderr kept for error messages. */
const STDERR_TAIL_CHARS = 4_000;

/** Lines of the agent's stdout that are JSON pass on; the others are reported and dropped. */
function jsonLines(onGarbage: (line: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const encoder = new TextEncoder();
  // A line over the cap (messages/ndjson.ts) is reported and skipped to its end, never held.
  const splitter = new LineSplitter(maxLineFromEnv());
  const pass = (items: FramedLine[], controller: TransformStreamDefaultController<Uint8Array>) => {
    for (const item of items) {
      if (!('line' in item)) {
        onGarbage(`a line longer than ${splitter.maxLine} characters: ${item.head.slice(0, 100)}`);
        continue;
      }
      const text = item.line.trim();
      try {
        JSON.parse(text);
      } catch {
        onGarbage(text.slice(0, 200));
        continue;
      }
      controller.enqueue(encoder.encode(`${text}\n`));
    }
  };
  return new TransformStream({
    transform: (chunk, controller) => pass(splitter.push(chunk), controller),
    flush: (controller) => pass(splitter.end(), controller),
  });
}

/** What the client side of the connection hands to the harness. */
export interface ClientHandlers {
  update(params: SessionNotification): void;
  permission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  readFile(params: {
    sessionId: string;
    path: string;
    line?: number | null;
    limit?: number | null;
  }): Promise<{ content: string }>;
  writeFile(params: { sessionId: string; path: string; content: string }): Promise<Record<string, never>>;
  terminals: Terminals;
}

/** The running agent: its process group and the ACP connection over its stdio. */
export class AgentLink {
  readonly group: RunningGroup;
  readonly connection: ClientConnection;
  /** Resolves with why the agent is gone (exit, closed output, not an ACP agent). */
  readonly gone: Promise<string>;
  initialized = false;
  #stderr = '';
  #exited = false;
  #reportGone: (why: string) => void = () => {};

  constructor(config: HarnessConfig, handlers: ClientHandlers) {
    this.gone = new Promise((resolve) => (this.#reportGone = resolve));
    this.group = startProcessGroup({
      command: config.command,
      cwd: config.cwd,
      env: config.env,
      interactive: true,
      graceMs: STOP_GRACE_MS,
      cap: 0,
      onOutput: (stream, chunk) => {
        if (stream === 'stderr') this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_CHARS);
      },
    });
    void this.group.done.then((result) => {
      this.#exited = true;
      const how = result.error
        ? `could not be started (${result.error.message})`
        : result.exitSignal
          ? `was killed by ${result.exitSignal}`
          : `exited with code ${result.code}`;
      this.#reportGone(this.#withStderr(`the ACP agent (${config.command.join(' ')}) ${how}`));
    });
    const input = Readable.toWeb(this.group.output!) as ReadableStream<Uint8Array>;
    const lines = input.pipeThrough(
      jsonLines((line) => {
        config.warn(`harness acp: the agent printed a line that is not JSON: ${line}`);
        // Before initialize is answered, output that is not JSON-RPC means this is not an ACP agent.
        if (!this.initialized)
          this.#reportGone(
            this.#withStderr(`the command is not an ACP agent: it printed ${JSON.stringify(line)} instead of JSON-RPC`),
          );
      }),
    );
    const stream = acp.ndJsonStream(Writable.toWeb(this.group.input!) as WritableStream<Uint8Array>, lines);
    const app = acp
      .client({ name: 'agentpipe' })
      .onNotification('session/update', ({ params }) => handlers.update(params))
      .onRequest('session/request_permission', ({ params, signal }) => handlers.permission(params, signal))
      .onRequest('fs/read_text_file', ({ params }) => handlers.readFile(params))
      .onRequest('fs/write_text_file', ({ params }) => handlers.writeFile(params))
      .onRequest('terminal/create', ({ params }) => handlers.terminals.create(params))
      .onRequest('terminal/output', ({ params }) => handlers.terminals.output(params.terminalId))
      .onRequest('terminal/wait_for_exit', ({ params }) => handlers.terminals.waitForExit(params.terminalId))
      .onRequest('terminal/kill', ({ params }) => handlers.terminals.kill(params.terminalId))
      .onRequest('terminal/release', ({ params }) => handlers.terminals.release(params.terminalId));
    this.connection = app.connect(stream);
    // The exit status says more than the closed output: wait a moment for it.
    const closed = () =>
      atMost(this.group.done, 1000).then(() => this.#reportGone(this.#withStderr('the ACP agent closed its output')));
    void this.connection.closed.then(closed, closed);
  }

  get exited(): boolean {
    return this.#exited;
  }

  get agent(): ClientConnection['agent'] {
    return this.connection.agent;
  }

  /** `request`, or an AgentError (failed, agent gone, no answer in `timeoutMs`), or Aborted. */
  async call<T>(what: string, request: Promise<T>, o: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    const stop = new AbortController();
    const failed = request.catch(async (error: unknown) => {
      // A closed connection rejects every request: the exit status says more.
      if (this.connection.signal.aborted) {
        throw new AgentError(`${(await atMost(this.gone, 1000)) ?? errorText(error)} (during ${what})`);
      }
      throw new AgentError(`${what} failed: ${errorText(error)}`);
    });
    const waits: Array<Promise<never>> = [
      this.gone.then((why) => Promise.reject(new AgentError(`${why} (during ${what})`))),
    ];
    if (o.timeoutMs !== undefined) {
      const seconds = o.timeoutMs / 1000;
      waits.push(
        sleep(o.timeoutMs, { signal: stop.signal, ref: false }).then(
          () =>
            Promise.reject(
              new AgentError(this.#withStderr(`the ACP agent did not answer ${what} within ${seconds} s`)),
            ),
          () => new Promise<never>(() => {}),
        ),
      );
    }
    if (o.signal) {
      const signal = o.signal;
      waits.push(
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(new Aborted());
          signal.addEventListener('abort', () => reject(new Aborted()), { once: true, signal: stop.signal });
        }),
      );
    }
    try {
      return await Promise.race([failed, ...waits]);
    } finally {
      stop.abort();
    }
  }

  /** SIGTERM to the group (SIGKILL after the grace period), the connection closed. */
  stop(): void {
    this.group.input?.end();
    if (!this.#exited) this.group.stop('aborted');
    this.connection.close();
  }

  #withStderr(message: string): string {
    const tail = this.#stderr.trim().split('\n').slice(-5).join('\n');
    return tail ? `${message}; stderr: ${tail}` : message;
  }
}
