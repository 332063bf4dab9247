/**
 * The cluster engine of `query()` (`options.cluster`): the session runs on the worker pool of a
 * Redis, exactly as for a client of `serve --redis`: the prompt's user messages and the control
 * requests go to the session's inbox, a worker runs it, and the stream is the session's log (with
 * its live deltas) read from Redis. The worker's requests to the client come back through the log
 * and are answered here (requests.ts). `resume: <session id>` goes on with a session of the
 * cluster: the stream starts after what its log holds.
 *
 * Its states:
 *
 *   connecting ──▶ starting ──▶ streaming ──▶ ended
 *        └────────────┴──────────────┴──▶ ended with one error result
 *
 * Nothing hangs (START race: no worker takes the session within `startTimeoutMs`; REDIS races:
 * Redis unreachable at the start, lost for good mid-stream, or restarted without its data): each
 * ends the stream with one error `result` for the prompt that has none, whose `errors` say why
 * (the same line on `stderr`).
 */
import { randomUUID } from 'node:crypto';
import type { AgentMessage } from '../../messages/types.ts';
import { parseOutputValue } from '../../messages/output-line.ts';
import { errorMessage } from '../../process/errors.ts';
import { AsyncMessageQueue } from '../../pipeline/queue.ts';
import { setupErrorResult } from '../../session/open.ts';
import { ClusterClient } from '../../cluster/session-client.ts';
import { RedisConnectionError } from '../../cluster/connection.ts';
import { sleep } from '../../process/retry.ts';
import { DATA_LOST, isInternal, START_ID, type LogMessage } from '../../cluster/log/index.ts';
import { Counter, promptMessages } from '../prompt-input.ts';
import type { ClusterOptions, Engine, PromptMessage, QueryOptions } from '../types.ts';
import { checkOptions, hookRegistry, jobOf } from './options.ts';
import { ControlTraffic } from './requests.ts';

/** Lines of a log a library client is never given: the worker's own lines, transcript-only lines, the protocol's. */
const isHidden = (m: LogMessage): boolean => isInternal(m) || m.type === 'keep_alive' || m.type === 'transcript_mirror';

/** The states of the engine (see the module comment). */
type EngineStatus = 'connecting' | 'starting' | 'streaming' | 'ended';

/** Starts the session on the cluster; options a worker cannot take throw (as the other engines' setup errors). */
export async function startCluster(
  prompt: string | AsyncIterable<PromptMessage>,
  options: QueryOptions & { cluster: ClusterOptions },
): Promise<Engine> {
  checkOptions(options);
  return new ClusterEngine(prompt, options).start();
}

class ClusterEngine {
  readonly #prompt: string | AsyncIterable<PromptMessage>;
  readonly #options: QueryOptions & { cluster: ClusterOptions };
  readonly #log: (line: string) => void;
  readonly #sessionId: string;
  readonly #prefix = `cq_${randomUUID().slice(0, 8)}`;
  readonly #queue = new AsyncMessageQueue<AgentMessage>({ highWaterMark: 256 });
  readonly #stop = new AbortController();
  readonly #results = new Counter();
  readonly #traffic: ControlTraffic;
  readonly #hooks: ReturnType<typeof hookRegistry>;
  #status: EngineStatus = 'connecting';
  #client?: ClusterClient;
  #sent = 0;
  #inputEnded = false;
  /** Something of the run was read (the start watch then says nothing). */
  #seen = false;
  #problemSaid = false;
  #closing: Promise<void> = Promise.resolve();

  constructor(prompt: string | AsyncIterable<PromptMessage>, options: QueryOptions & { cluster: ClusterOptions }) {
    this.#prompt = prompt;
    this.#options = options;
    this.#log = options.stderr ?? (() => {});
    this.#sessionId = options.resume ?? options.sessionId ?? randomUUID();
    this.#hooks = hookRegistry(options, this.#prefix);
    this.#traffic = new ControlTraffic(options, this.#hooks, this.#prefix, (lines) => this.#push(lines));
  }

  async start(): Promise<Engine> {
    let client: ClusterClient;
    try {
      client = await ClusterClient.open({ redis: this.#options.cluster.redis, log: this.#log });
    } catch (error) {
      if (RedisConnectionError.isInstance(error)) return this.#failed(error.message);
      throw error;
    }
    this.#client = client;
    let position: { from: string; liveFrom: string } | string;
    try {
      position = await this.#locate(client);
      if (typeof position === 'string') {
        await client.close();
        return this.#failed(position);
      }
      this.#status = 'starting';
      await this.#startRun(client);
    } catch (error) {
      await client.close();
      return this.#failed(
        RedisConnectionError.isInstance(error)
          ? error.message
          : `cannot start session ${this.#sessionId}: ${errorMessage(error)}`,
      );
    }
    this.#status = 'streaming';
    const watch = await client.sessions.watchDataLoss(() => void this.#fail(DATA_LOST));
    void this.#watchStart(this.#options.cluster.startTimeoutMs ?? 30_000);
    void this.#feed();
    void this.#read(client, position).then(async (problem) => {
      if (problem) await this.#fail(problem);
      watch.stop();
      await this.#end(client);
    });
    return this.#face();
  }

  /** Where the stream starts (after what the log holds, when resuming); a problem to end with instead. */
  async #locate(client: ClusterClient): Promise<{ from: string; liveFrom: string } | string> {
    const id = this.#sessionId;
    const exists = await client.sessions.exists(id);
    if (this.#options.resume && !exists)
      return `no session ${id} in Redis at ${client.where} (never started, archived or deleted)`;
    if (!this.#options.resume && exists)
      return `session ${id} already exists in Redis at ${client.where}: resume it with resume: "${id}"`;
    if (!exists) return { from: START_ID, liveFrom: START_ID };
    const [from, liveFrom] = await Promise.all([client.sessions.lastId(id), client.sessions.lastLiveId(id)]);
    return { from, liveFrom };
  }

  /** The hooks' registration first, then the session's job. */
  async #startRun(client: ClusterClient): Promise<void> {
    const { initialize } = this.#hooks;
    if (initialize)
      await this.#push([{ type: 'control_request', request_id: `${this.#prefix}_init`, request: initialize }]);
    await client.start(
      jobOf(this.#sessionId, this.#options),
      this.#options.cluster.startTimeoutMs ?? 30_000,
      this.#stop.signal,
    );
  }

  /** The engine's face: the stream and the controls. */
  #face(): Engine {
    return {
      messages: this.#queue,
      control: (request) =>
        this.#status !== 'streaming' || this.#stop.signal.aborted
          ? Promise.reject(new Error(`cannot send ${request.subtype}: the session's run ended`))
          : this.#traffic.request(request),
      endInput: () => this.#endInput(),
      close: () => {
        if (!this.#stop.signal.aborted && !this.#inputEnded) {
          // The query is over: the worker stops its prompt and ends the run.
          this.#inputEnded = true;
          this.#closing = this.#push([
            { type: 'control_request', request_id: `${this.#prefix}_close`, request: { subtype: 'interrupt' } },
            { type: 'end_input' },
            // The query is over: a client gone with Redis cannot stop it either.
          ]).catch(() => undefined);
        }
        this.#stop.abort();
        void this.#queue.return();
      },
    };
  }

  #push(lines: object[]): Promise<void> {
    return this.#client!.push(
      this.#sessionId,
      lines.map((l) => JSON.stringify(l)),
    );
  }

  #endInput(): void {
    if (this.#inputEnded || this.#stop.signal.aborted) return;
    this.#inputEnded = true;
    this.#push([{ type: 'end_input' }]).catch((error: unknown) =>
      this.#log(`agentpipe: cannot end the session's input: ${errorMessage(error)}`),
    );
  }

  /** The prompt's user messages to the inbox, one after the other; the input ends once each has its result. */
  async #feed(): Promise<void> {
    try {
      for await (const message of promptMessages(this.#prompt)) {
        if (this.#stop.signal.aborted || this.#inputEnded) return;
        await this.#push([{ ...message, uuid: message.uuid ?? randomUUID() }]);
        this.#sent++;
      }
    } catch (error) {
      this.#log(`agentpipe: prompt input failed: ${errorMessage(error)}`);
    }
    await this.#results.reached(this.#sent);
    this.#endInput();
  }

  /** Follows the log until the run ends, `close()`, or Redis is lost for good; the problem, if one ended it. */
  async #read(client: ClusterClient, at: { from: string; liveFrom: string }): Promise<string | undefined> {
    const live = this.#options.includePartialMessages ? { fromId: at.liveFrom } : undefined;
    try {
      for await (const { entry } of client.sessions.follow(this.#sessionId, at.from, this.#stop.signal, live))
        if (await this.#route(client, entry.id, entry.message)) return undefined;
      return undefined;
    } catch (error) {
      return this.#stop.signal.aborted ? undefined : errorMessage(error);
    }
  }

  /** Routes one log entry: control traffic to its handler, messages to the stream; true at the end of the run. */
  async #route(client: ClusterClient, id: string, message: LogMessage): Promise<boolean> {
    this.#seen = true;
    // The end of this run when nothing came after it (an earlier run's end is history).
    if (message.type === 'agentpipe_session_end') return (await client.sessions.lastId(this.#sessionId)) === id;
    if (isHidden(message)) return false;
    const parsed = parseOutputValue(message);
    if (!parsed.ok) {
      this.#log(`agentpipe: log entry ${id} of session ${this.#sessionId} ignored (${parsed.error})`);
      return false;
    }
    const line = parsed.line;
    if (line.type === 'control_response') this.#traffic.answered(line.response.request_id, line.response);
    else if (line.type === 'control_request')
      this.#traffic
        .answer(line, () => this.#stop.signal.aborted)
        .catch((error: unknown) =>
          this.#log(`agentpipe: cannot answer ${line.request.subtype}: ${errorMessage(error)}`),
        );
    else if (line.type === 'control_cancel_request') this.#traffic.cancelled(line.request_id);
    else if (line.type === 'message') {
      await this.#queue.push(line.message);
      if (line.message.type === 'result') this.#results.add();
    }
    return false;
  }

  /** START race: fails the start when no worker took the session in time. */
  async #watchStart(ms: number): Promise<void> {
    const client = this.#client!;
    await sleep(ms, { signal: this.#stop.signal, onAbort: 'resolve' });
    if (this.#stop.signal.aborted || this.#seen || (await client.sessions.owner(this.#sessionId).catch(() => null)))
      return;
    // The count is then said as unknown.
    const workers = await client.workers().catch(() => undefined);
    await this.#fail(
      `no agentpipe worker took session ${this.#sessionId} within ${ms} ms (${workers ?? 'unknown'} ` +
        `worker${workers === 1 ? '' : 's'} connected to ${client.where}): ` +
        `start one with \`agentpipe worker --redis <url>\``,
    );
  }

  /** Ends the stream with one error result for the prompt that has none yet. */
  async #fail(problem: string): Promise<void> {
    if (this.#problemSaid || this.#status === 'ended' || this.#stop.signal.aborted) return;
    this.#problemSaid = true;
    this.#log(`agentpipe: error: ${problem}`);
    if (this.#results.value < Math.max(this.#sent, 1))
      await this.#queue.push(setupErrorResult(problem, this.#sessionId));
    this.#stop.abort();
  }

  async #end(client: ClusterClient): Promise<void> {
    this.#status = 'ended';
    this.#stop.abort();
    this.#results.releaseAll();
    this.#traffic.end(`session ${this.#sessionId}: its run ended`);
    await this.#closing;
    await client.close();
    this.#queue.done();
  }

  /** An engine that ends at once with one error result (a setup failure). */
  async #failed(message: string): Promise<Engine> {
    this.#status = 'ended';
    this.#log(`agentpipe: error: ${message}`);
    await this.#queue.push(setupErrorResult(message, this.#sessionId));
    this.#queue.done();
    return {
      messages: this.#queue,
      control: (request) => Promise.reject(new Error(`cannot send ${request.subtype}: ${message}`)),
      endInput: () => undefined,
      close: () => void this.#queue.return(),
    };
  }
}
