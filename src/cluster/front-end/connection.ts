/**
 * One WebSocket connection of a front end, as a state machine:
 *
 *   resolving ──▶ starting ──▶ following ──▶ ended          (the run's end marker: close 1000)
 *       │             │            ├───────▶ failed         (Redis unreachable too long: close 1011)
 *       └─────────────┴──▶ refused └───────▶ lost           (Redis lost its data: an error result, close 1011)
 *
 * - resolving: which session (`?session=`, else the new one named at the upgrade) and from where
 *   (`from`: a stream id, a message uuid, a delta's uuid; an archived session is restored first),
 *   through a Redis blip (RECONNECT-DURING-A-BLIP: retried, not refused).
 *   A session still in a warm pool is nobody's: naming it is refused (POOLED race).
 * - starting: a new session's start begun at the upgrade (its warm claim, or its job) is awaited
 *   BEFORE any of its input goes to the inbox, so a client told its session could not start finds
 *   no prompt of its running (issue 28 B2); the claim and the job are retried through a Redis blip.
 *   A reconnect makes sure a run will read its input (RECONNECT-AS-THE-RUN-ENDS race: a run that
 *   ensureRunning left the input to ended since, its end marker last in the log: a new run is
 *   asked for). A client cut off before its run's result gets the rest, then the close (CATCH-UP).
 * - following: the log and its deltas from `from`; an end marker after this connection's start
 *   ends it once the log ends there and no input waits (INPUT-AS-THE-RUN-ENDS race: such input
 *   gets a new run instead).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import { UUID_PATTERN } from '../../messages/ids.ts';
import { errorMessage } from '../../process/errors.ts';
import { socketWriter } from '../../pipeline/socket-writer.ts';
import { setupErrorResult } from '../../session/open.ts';
import { compareStreamIds, isInternal, START_ID, STREAM_ID, DATA_LOST, type LogEntry } from '../log/index.ts';
import { retryRedis } from '../redis-retry.ts';
import type { ClusterClient } from '../session-client.ts';
import { answers, END_INPUT, inboxLine } from './frames.ts';
import { frameLines } from '../../messages/ndjson.ts';
import type { PromptSpans } from './prompt-spans.ts';

/** How long a reconnect to an archived session waits for a worker to restore it. */
const RESTORE_WAIT_MS = 30_000;

/** The states of a connection (see the module comment). */
export type ConnectionStatus = 'resolving' | 'starting' | 'following' | 'ended' | 'refused' | 'failed' | 'lost';

/** What a connection needs of its front end. */
export interface ConnectionHost {
  client: ClusterClient;
  print: (line: string) => void;
  highWaterBytes?: number;
  /** Makes sure a worker runs the session (ClusterClient.start). */
  ensureRunning(sessionId: string, signal?: AbortSignal): Promise<'new' | 'pending' | 'running'>;
  /** The start of a new session begun at its upgrade (taken: a connection awaits it once). */
  takeStarting(sessionId: string): Promise<void> | undefined;
  /** The warm pool's refill owed for a session a connection took. */
  refillFor(sessionId: string): (() => void) | undefined;
  /** How long input and a start are retried through a lost Redis connection. */
  retryMs: number;
  /** The spans of a connection's prompts (telemetry on). */
  promptSpans?: () => PromptSpans;
}

/** Where the connection starts reading, and what ends it. */
interface Position {
  sessionId: string;
  asked: boolean;
  /** The last durable message the client has. */
  from: string;
  /** The deltas are followed from there. */
  liveFrom?: string;
  /** End markers up to this id end earlier runs (history). */
  startAt: string;
  /** The client missed its run's end: it gets the rest, then the close. */
  catchUp: boolean;
}

export class FrontConnection {
  readonly #host: ConnectionHost;
  readonly #ws: WebSocket;
  readonly #req: IncomingMessage;
  readonly #id: number;
  readonly #assigned?: string;
  #status: ConnectionStatus = 'resolving';
  /** The socket closed. */
  readonly #closed = new AbortController();
  /** Ends the follow (the socket closed, or Redis lost its data). */
  readonly #stop: AbortController;
  /** Input, in order, one inbox append after the other; what comes before the session is started waits. */
  #pushing: Promise<void>;
  #known: (sessionId: string | undefined) => void = () => undefined;
  /** Set once an end marker of a run after this connection's start was seen: input then starts a new run. */
  #runEnded = false;
  /** Prompts this client sent and results it was sent (a prompt open when Redis loses its data gets one). */
  #prompts = 0;
  #results = 0;
  #sessionId?: string;
  /** Telemetry on: the spans of this client's prompts (their context goes with them to the worker). */
  readonly #spans?: PromptSpans;

  constructor(host: ConnectionHost, ws: WebSocket, req: IncomingMessage, id: number, assigned?: string) {
    this.#host = host;
    this.#ws = ws;
    this.#req = req;
    this.#id = id;
    this.#assigned = assigned;
    this.#stop = new AbortController();
    this.#spans = host.promptSpans?.();
    const session = new Promise<string | undefined>((resolve) => (this.#known = resolve));
    this.#pushing = session.then(() => undefined);
    ws.on('close', () => {
      this.#closed.abort();
      this.#stop.abort();
    });
    ws.on('message', (data) => this.#input(data, session));
    ws.on('error', (error) => host.print(`agentpipe serve: connection ${id}: ${error.message}`));
  }

  get status(): ConnectionStatus {
    return this.#status;
  }

  /** Serves the connection until it closes. */
  async serve(): Promise<void> {
    // Reads only (and an archived session's idempotent start): retried through a Redis blip like the start and input,
    // so a client reconnecting while Redis restarts is served, not refused.
    const position = await retryRedis(() => this.#resolve(), {
      forMs: this.#host.retryMs,
      signal: this.#stop.signal,
    }).catch((error: unknown) => this.#refuse(errorMessage(error)));
    if (!position) return;
    this.#sessionId = position.sessionId;
    this.#status = 'starting';
    if (!(await this.#start(position))) return;
    this.#status = 'following';
    const ended = await this.#follow(position);
    await this.#pushing;
    this.#finish(ended);
  }

  /** Redis lost its data: the follow ends, an open prompt gets its error result, the socket closes with the reason. */
  dataLost(): void {
    if (this.#status === 'ended' || this.#status === 'refused') return;
    this.#status = 'lost';
    this.#stop.abort();
  }

  /** Input lines to the inbox, in order, once the session is started; a prompt after its run ended gets a new run. */
  #input(data: WebSocket.RawData, session: Promise<string | undefined>): void {
    const lines = frameLines(data)
      .map(inboxLine)
      .filter((l) => l !== undefined);
    if (lines.length === 0) return;
    this.#pushing = this.#pushing.then(async () => {
      const sessionId = await session;
      if (!sessionId || this.#status === 'lost') return; // refused: nothing of it runs
      const spans = this.#spans;
      const input = lines.map((l) => (spans && l.user ? JSON.stringify(spans.start(sessionId, l.user)) : l.line));
      try {
        await retryRedis(() => this.#host.client.sessions.pushInput(sessionId, input), { forMs: this.#host.retryMs });
        this.#prompts += lines.filter((l) => l.prompt).length;
      } catch (error) {
        this.#host.print(`agentpipe serve: connection ${this.#id}: input lost: ${errorMessage(error)}`);
        return;
      }
      if (this.#runEnded && lines.some((l) => l.line !== END_INPUT))
        await this.#host
          .ensureRunning(sessionId)
          .catch((error: unknown) =>
            this.#host.print(
              `agentpipe serve: connection ${this.#id}: cannot start session ${sessionId}: ${errorMessage(error)}`,
            ),
          );
    });
  }

  /** Which session and from where; undefined once refused. */
  async #resolve(): Promise<Position | undefined> {
    const sessions = this.#host.client.sessions;
    const url = new URL(this.#req.url ?? '/', 'http://localhost');
    const asked = url.searchParams.get('session');
    if (asked === null) {
      const sessionId = this.#assigned ?? randomUUID();
      return { sessionId, asked: false, from: START_ID, liveFrom: START_ID, startAt: START_ID, catchUp: false };
    }
    if (!UUID_PATTERN.test(asked)) return this.#refuse(`session=${asked.slice(0, 60)} is not a session id`);
    // A warm session still in a pool belongs to no client yet: naming it (its id read in a log) would share it.
    if (await sessions.isPooled(asked)) return this.#refuse(`session ${asked}: no such session`);
    const fromParam = url.searchParams.get('from') ?? this.#req.headers['x-agentpipe-from']?.toString();
    const position: Position = { sessionId: asked, asked: true, from: START_ID, startAt: START_ID, catchUp: false };
    if (!fromParam) return position;
    const found = await this.#findFrom(asked, fromParam, position);
    if (!found) return this.#refuse(`from=${fromParam.slice(0, 60)}: no such message in session ${asked}`);
    position.from = found;
    // A client cut off before it saw its run's result (the log ends with that result and the run's end marker, both
    // after `from`) gets the rest of the run, then the normal close; input it sends gets a new run.
    const last = (await sessions.lastEntries(asked, 1))[0];
    position.catchUp =
      last?.message.type === 'agentpipe_session_end' &&
      compareStreamIds(last.id, found) > 0 &&
      (await sessions.read(asked, found)).some((entry) => entry.message.type === 'result');
    return position;
  }

  /** The stream id of `from` (a stream id, a message's uuid, or a delta's: then its live id too). */
  async #findFrom(sessionId: string, from: string, position: Position): Promise<string | undefined> {
    const sessions = this.#host.client.sessions;
    let found = STREAM_ID.test(from) ? from : await sessions.idOfUuid(sessionId, from);
    if (!found && !(await sessions.exists(sessionId))) {
      // Archived: the worker that runs it restores its log from the archive.
      await this.#host.ensureRunning(sessionId);
      if (await sessions.waitForLog(sessionId, RESTORE_WAIT_MS, this.#closed.signal))
        found = await sessions.idOfUuid(sessionId, from);
    }
    if (!found) {
      // A delta (ephemeral): the client goes on after it, from the durable message it follows.
      const delta = await sessions.liveEntryOfUuid(sessionId, from);
      if (delta) [found, position.liveFrom] = [delta.after, delta.id];
    }
    return found;
  }

  /** Makes sure a run will read this connection's input, then lets the input go; false once refused. */
  async #start(position: Position): Promise<boolean> {
    const { sessionId } = position;
    const sessions = this.#host.client.sessions;
    const starting = this.#host.takeStarting(sessionId);
    this.#host.print(
      `agentpipe serve: connection ${this.#id} from ${this.#req.socket.remoteAddress ?? '?'}: session ${sessionId}` +
        (position.asked
          ? ` (reconnected, from ${position.from})`
          : starting && this.#host.refillFor(sessionId)
            ? ' (a warm session)'
            : ''),
    );
    try {
      if (position.catchUp) {
        // The end marker after `from` is this connection's: it closes it unless input came in.
        position.startAt = position.from;
        position.liveFrom ??= await sessions.lastLiveId(sessionId);
      } else if (!position.asked) {
        await (starting ?? this.#host.ensureRunning(sessionId));
      } else {
        const leftToRun = (await this.#host.ensureRunning(sessionId, this.#closed.signal)) === 'running';
        // A run that ended has let go (ensureRunning waited for it): its end marker is history. Both ids are read
        // before this connection's input goes in, so nothing its input causes is missed.
        const [last, live] = await Promise.all([
          sessions.lastEntries(sessionId, 1).then((l) => l[0]),
          position.liveFrom ?? sessions.lastLiveId(sessionId),
        ]);
        [position.startAt, position.liveFrom] = [last?.id ?? START_ID, live];
        // RECONNECT-AS-THE-RUN-ENDS: the run ensureRunning left this input to ended since.
        if (leftToRun && last?.message.type === 'agentpipe_session_end')
          await this.#host.ensureRunning(sessionId, this.#closed.signal);
      }
    } catch (error) {
      this.#known(undefined);
      this.#refuse(`cannot start session ${sessionId}: ${errorMessage(error)}`);
      return false;
    }
    this.#known(sessionId);
    return true;
  }

  /** Sends the log from `from` until its end marker ends the connection; true when it did (not a failure). */
  async #follow(position: Position): Promise<boolean> {
    const { sessionId } = position;
    const sessions = this.#host.client.sessions;
    const write = socketWriter(this.#ws, this.#closed.signal, this.#host.highWaterBytes);
    // A warm session's replacement is queued once the answer to this connection's first prompt started.
    let refill = this.#host.refillFor(sessionId);
    const send = (entry: LogEntry): Promise<void> => {
      if (refill && answers(entry.message)) {
        refill();
        refill = undefined;
      }
      if (entry.message.type === 'result') this.#results++;
      return write(`${entry.json}\n`);
    };
    try {
      const live = { fromId: position.liveFrom ?? START_ID };
      for await (const { entry } of sessions.follow(sessionId, position.from, this.#stop.signal, live)) {
        this.#spans?.seen(entry.message);
        if (entry.message.type !== 'agentpipe_session_end') {
          if (!isInternal(entry.message)) await send(entry);
          continue;
        }
        // An end before this connection's time (an earlier run) is history; one after it ends the connection.
        if (compareStreamIds(entry.id, position.startAt) > 0) this.#runEnded = true;
        if (this.#runEnded && (await this.#endsNow(sessionId, entry.id))) return true;
      }
    } catch (error) {
      if (!this.#stop.signal.aborted) {
        this.#host.print(`agentpipe serve: connection ${this.#id}: session ${sessionId}: ${errorMessage(error)}`);
        this.#status = 'failed';
      }
    } finally {
      refill?.();
    }
    return false;
  }

  /**
   * True when the end marker `markerId` ends the connection: it is the log's last entry (no later run started) and no
   * input waits in the inbox (once this connection's own input is in: input sent as the run ended gets a new run).
   */
  async #endsNow(sessionId: string, markerId: string): Promise<boolean> {
    const sessions = this.#host.client.sessions;
    await this.#pushing;
    if ((await sessions.lastId(sessionId)) !== markerId) return false;
    if (!(await sessions.hasPendingInput(sessionId))) return true;
    // Input came in as the run ended: it gets a run (the worker may run the session again itself; a no-op then).
    await this.#host
      .ensureRunning(sessionId)
      .catch((error: unknown) =>
        this.#host.print(`agentpipe serve: session ${sessionId}: cannot start it: ${errorMessage(error)}`),
      );
    return false;
  }

  /** Closes the socket as the state says. */
  #finish(ended: boolean): void {
    const ws = this.#ws;
    this.#spans?.close(`the client's connection ended (${this.#status === 'lost' ? DATA_LOST : 'closed'})`);
    if (this.#status === 'lost') {
      // Every prompt ends in one result: one sent and not answered gets it now.
      if (this.#prompts > this.#results && ws.readyState === ws.OPEN)
        ws.send(`${JSON.stringify(setupErrorResult(DATA_LOST, this.#sessionId))}\n`);
      if (ws.readyState === ws.OPEN) ws.close(1011, 'Redis lost its data: the session is gone');
    } else {
      this.#status = ended ? 'ended' : this.#status === 'following' ? 'failed' : this.#status;
      if (ws.readyState === ws.OPEN) ws.close(ended ? 1000 : 1011, ended ? 'session ended' : 'front end failed');
    }
    this.#host.print(
      `agentpipe serve: connection ${this.#id} ended${this.#status === 'lost' ? ` (${DATA_LOST})` : ''}`,
    );
  }

  #refuse(why: string): undefined {
    this.#status = 'refused';
    this.#known(undefined);
    this.#host.print(`agentpipe serve: connection ${this.#id}: ${why}`);
    this.#ws.close(1008, why.slice(0, 120));
    return undefined;
  }
}
