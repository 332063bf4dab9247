/**
 * `agentpipe serve --redis`: a stateless front end. A WebSocket connection is a session of the
 * cluster: a new one gets a fresh id and a job on the sessions queue (a worker runs it); the
 * client's input lines go to the session's inbox; what it is sent is the session's log from
 * where it asks, then the log and its live deltas as they are appended. Nothing of the session
 * lives here, so a client may reconnect to any front end:
 *
 *   ws://host:port/?session=<session id>&from=<stream id or message uuid>
 *
 * `session` names the session to reconnect to (every message carries it as `session_id`); `from`
 * is the last message the client has (its uuid, or the stream id when it knows it): it is sent
 * every later message once, in order. Without `from`, it is sent the whole log. Lines without a
 * uuid (control requests and responses) after that message may come again. `{"type":"end_input"}`
 * ends the session's run (queued prompts finish, then the connection closes); a dropped
 * connection does not: the session waits for the client (AGENTPIPE_SESSION_IDLE_MS).
 *
 * Warm sessions: the front end keeps `warm` sessions (AGENTPIPE_WARM_SESSIONS, default 1; 0: none)
 * open on workers ahead of its next new connections (jobs of the warm queue, see worker.ts). A new
 * connection takes a ready one (its first prompt then finds the session open and reading its inbox)
 * and claims it at the upgrade with a keep_alive line in its inbox; its replacement is queued once
 * the answer to its first prompt started. A warm session no connection took is dropped from the pool
 * well before its worker ends it (after `warmMs`, AGENTPIPE_WARM_MS, default 60 s; nothing of it
 * stays in Redis) and replaced. A session taken just as its worker ended it still runs: the worker
 * sees the claim and queues it on the sessions queue, or (gone already) the front end queues it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import type { SessionOptions } from '../session/options.ts';
import { envCount, envMs, MAX_TIMER_MS } from '../process/env-number.ts';
import { reconnectDelay } from './connection.ts';
import { compareStreamIds, type LogMessage, type SessionLog } from './redis-log.ts';
import { jobOptions, type SessionJob, type StreamFlags } from './jobs.ts';
import { ClusterClient } from './session-client.ts';
import { isInternal } from './session-run.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import { nestedDeeper } from '../messages/json-limits.ts';
import { socketWriter } from '../pipeline/socket-writer.ts';

/** Options of a front end. */
export interface FrontEndOptions {
  redis: string;
  options: SessionOptions;
  stream: StreamFlags;
  log: (line: string) => void;
  /** Bytes a socket may buffer before its session's output waits (default 1 MiB). */
  highWaterBytes?: number;
  /** Warm sessions kept ready for new connections (0: none). Default AGENTPIPE_WARM_SESSIONS, else 1. */
  warm?: number;
  /** How long a warm session waits for a connection before its worker ends it. Default AGENTPIPE_WARM_MS, else 60 s. */
  warmMs?: number;
}

/** A session of the pool: queued, then ready (`readyAt`) until it is taken or dropped. */
interface WarmSession {
  id: string;
  stop: AbortController;
  readyAt?: number;
  timer?: NodeJS.Timeout;
}

const STREAM_ID = /^\d+-\d+$/;
const END_INPUT = '{"type":"end_input"}';
/** A warm session is dropped from the pool this long before its worker would end it (at least half its time). */
const WARM_MARGIN_MS = 5000;
/** A warm session a connection took is replaced at the latest this long after (see #takeWarm). */
const REFILL_AFTER_MS = 1000;
/** After a failure to queue a warm session, the pool waits this long before it tries again. */
const WARM_RETRY_MS = 5000;
/** How long a reconnect to an archived session waits for a worker to restore it. */
const RESTORE_WAIT_MS = 30_000;

/** True for the messages that show a prompt is being answered: its first delta, assistant message or result. */
function answers(message: LogMessage): boolean {
  if (message.type === 'assistant' || message.type === 'result') return true;
  const event = message.type === 'stream_event' ? (message as { event?: unknown }).event : undefined;
  return typeof event === 'object' && event !== null && (event as { type?: unknown }).type === 'content_block_delta';
}

/** The text of a frame, split into its non-blank lines. */
function frameLines(data: WebSocket.RawData): string[] {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  return bytes
    .toString('utf8')
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '');
}

/** What an input line becomes in the inbox: undefined for transport-only lines; user messages get a uuid. */
export function inboxLine(line: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return line; // the worker's parser reports it
  }
  // Too deep to rewrite safely (JSON.stringify would overflow the stack): the worker's parser refuses it.
  if (typeof value !== 'object' || value === null || Array.isArray(value) || nestedDeeper(value)) return line;
  const message = value as Record<string, unknown>;
  if (message.type === 'keep_alive') return undefined;
  if (message.type === 'end_input') return END_INPUT;
  if (message.type === 'user' && typeof message.uuid !== 'string')
    return JSON.stringify({ ...message, uuid: randomUUID() });
  return line;
}

/** A front end on one Redis: connects at `open` (a clear RedisConnectionError when it cannot). */
export class ClusterFrontEnd {
  readonly #o: FrontEndOptions;
  readonly #client: ClusterClient;
  readonly #sessions: SessionLog;
  /** Jobs queued (or warm sessions claimed) at the upgrade of a new session's connection, until it takes them. */
  readonly #starting = new Map<string, Promise<void>>();
  /** Warm sessions queued or ready, oldest first. */
  readonly #pool: WarmSession[] = [];
  /** The refills owed for warm sessions connections took (see #takeWarm), by session id. */
  readonly #refills = new Map<string, () => void>();
  readonly #warmSize: number;
  readonly #warmMs: number;
  #closing = false;

  private constructor(o: FrontEndOptions, client: ClusterClient) {
    this.#o = o;
    this.#client = client;
    this.#sessions = client.sessions;
    this.#warmSize = o.warm ?? envCount('AGENTPIPE_WARM_SESSIONS', 1);
    this.#warmMs = Math.min(o.warmMs ?? envMs('AGENTPIPE_WARM_MS', 60_000), MAX_TIMER_MS);
  }

  /** Connects to Redis (bounded: fails within seconds), opens the queue and starts filling the warm pool. */
  static async open(o: FrontEndOptions): Promise<ClusterFrontEnd> {
    const client = await ClusterClient.open({ redis: o.redis, log: o.log });
    await client.sessions.warm();
    const front = new ClusterFrontEnd(o, client);
    front.#refill();
    return front;
  }

  /**
   * Makes sure a worker runs the session: a no-op while its job waits or runs; while a run that
   * ended is still letting go (its job not yet removed: adding would be a no-op), it waits for
   * that job and queues a new run (ClusterClient.start). `fresh`: an id no run had yet.
   */
  async ensureRunning(sessionId: string, signal?: AbortSignal, fresh = false): Promise<'new' | 'pending' | 'running'> {
    return this.#client.start(this.#job(sessionId), 30_000, signal, fresh);
  }

  #job(sessionId: string): SessionJob {
    return { sessionId, options: jobOptions(this.#o.options), stream: this.#o.stream };
  }

  /** Queues warm sessions until the pool is full (not once the front end is closing). */
  #refill(): void {
    while (!this.#closing && this.#pool.length < this.#warmSize) {
      const warm: WarmSession = { id: randomUUID(), stop: new AbortController() };
      this.#pool.push(warm);
      void this.#prepare(warm);
    }
  }

  /** Queues a warm session's job and waits (as long as it takes a worker) until it is ready. */
  async #prepare(warm: WarmSession): Promise<void> {
    const warmMs = this.#warmMs;
    try {
      await this.#client.addWarm({ ...this.#job(warm.id), warmMs });
      while (!warm.stop.signal.aborted) {
        if (!(await this.#sessions.waitReady(warm.id, 60_000, warm.stop.signal))) continue;
        if (warm.stop.signal.aborted) return;
        warm.readyAt = Date.now();
        this.#o.log(`agentpipe serve: warm session ${warm.id} is ready`);
        // Dropped well before its worker ends it: a claim after that would find it handed over to the sessions
        // queue (or gone), a slower start.
        warm.timer = setTimeout(() => this.#drop(warm), Math.max(warmMs / 2, warmMs - WARM_MARGIN_MS));
        warm.timer.unref();
        return;
      }
    } catch (error) {
      if (warm.stop.signal.aborted) return;
      this.#o.log(`agentpipe serve: cannot keep a warm session: ${(error as Error).message}`);
      warm.timer = setTimeout(() => this.#drop(warm), WARM_RETRY_MS);
      warm.timer.unref();
    }
  }

  /** Takes a warm session out of the pool and queues its replacement. */
  #drop(warm: WarmSession, refill = true): void {
    clearTimeout(warm.timer);
    warm.stop.abort();
    const at = this.#pool.indexOf(warm);
    if (at >= 0) this.#pool.splice(at, 1);
    if (refill) this.#refill();
  }

  /**
   * A ready warm session for a new connection, out of the pool, if there is one. Its replacement is queued once the
   * answer to the connection's first prompt started or it closed (REFILL_AFTER_MS at the latest): opening it on a
   * worker then does not slow that first answer down.
   */
  #takeWarm(): string | undefined {
    const warm = this.#pool.find((w) => w.readyAt !== undefined);
    if (!warm) return undefined;
    this.#drop(warm, false);
    const refill = (): void => {
      clearTimeout(timer);
      if (this.#refills.delete(warm.id)) this.#refill();
    };
    const timer = setTimeout(refill, REFILL_AFTER_MS);
    timer.unref();
    this.#refills.set(warm.id, refill);
    return warm.id;
  }

  /** Claims a warm session for its connection; one that ended meanwhile (discarded) is started as a new session. */
  async #claim(sessionId: string): Promise<void> {
    if (!(await this.#client.takeWarm(this.#job(sessionId))))
      this.#o.log(`agentpipe serve: warm session ${sessionId} had ended as it was taken; started it anew`);
  }

  /**
   * The session a connection is for (told in the upgrade response): the one it names, else a new one; undefined for a
   * bad name.
   */
  sessionIdFor(req: IncomingMessage): string | undefined {
    const asked = new URL(req.url ?? '/', 'http://localhost').searchParams.get('session');
    if (asked !== null) return UUID_PATTERN.test(asked) ? asked : undefined;
    // A new session: a warm one is claimed now, else its job is queued now, so a worker starts it while the handshake
    // completes.
    const warm = this.#takeWarm();
    const sessionId = warm ?? randomUUID();
    const starting = warm ? this.#claim(warm) : this.ensureRunning(sessionId, undefined, true).then(() => undefined);
    starting.catch(() => undefined); // said by serveConnection, which awaits it
    this.#starting.set(sessionId, starting);
    setTimeout(() => this.#starting.delete(sessionId), 60_000).unref();
    return sessionId;
  }

  /** Serves one WebSocket connection (see the module comment for its URL); resolves when it closed. */
  async serveConnection(ws: WebSocket, req: IncomingMessage, id: number, assigned?: string): Promise<void> {
    const o = this.#o;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const asked = url.searchParams.get('session');
    const fromParam = url.searchParams.get('from') ?? req.headers['x-agentpipe-from']?.toString();
    const closed = new AbortController();
    ws.on('close', () => closed.abort());
    // Input, in order, one inbox append after the other; what comes before the session is known waits for it.
    let known: (sessionId: string) => void = () => undefined;
    const session = new Promise<string>((resolve) => (known = resolve));
    let pushing: Promise<void> = session.then(() => undefined);
    // Set once the follow sees an end marker of a run after this connection's start: input then starts a new run.
    let runEnded = false;
    ws.on('message', (data) => {
      const lines = frameLines(data)
        .map(inboxLine)
        .filter((l) => l !== undefined);
      if (lines.length === 0) return;
      pushing = pushing.then(async () => {
        const sessionId = await session;
        await this.#push(sessionId, lines, id);
        // A run that ended since this connection started it (its end marker seen) runs again for new input.
        if (runEnded && lines.some((l) => l !== END_INPUT))
          await this.ensureRunning(sessionId).catch((error: unknown) =>
            o.log(`agentpipe serve: connection ${id}: cannot start session ${sessionId}: ${(error as Error).message}`),
          );
      });
    });
    ws.on('error', (error) => o.log(`agentpipe serve: connection ${id}: ${error.message}`));
    const refuse = (why: string): void => {
      o.log(`agentpipe serve: connection ${id}: ${why}`);
      ws.close(1008, why.slice(0, 120));
    };
    let sessionId: string;
    let from = '0-0';
    let liveFrom: string | undefined;
    // A client whose connection was lost before it saw its run's result (the log ends with that
    // result and the run's end marker, both after `from`) gets the rest of the run, then the normal
    // close, as it would have on its first connection; input it sends gets a new run. A client that
    // saw the result reconnects to go on: its connection starts a new run.
    let catchUp = false;
    if (asked !== null) {
      if (!UUID_PATTERN.test(asked)) return refuse(`session=${asked.slice(0, 60)} is not a session id`);
      // A warm session still in a pool belongs to no client yet: a connection naming it (its id read in a log) would
      // share it with the client the pool hands it to next.
      if (await this.#sessions.isPooled(asked)) return refuse(`session ${asked}: no such session`);
      sessionId = asked;
      if (fromParam) {
        let found = STREAM_ID.test(fromParam) ? fromParam : await this.#sessions.idOfUuid(sessionId, fromParam);
        if (!found && !(await this.#sessions.exists(sessionId))) {
          // Archived: the worker that runs it restores its log from the archive.
          try {
            await this.ensureRunning(sessionId);
          } catch (error) {
            return refuse(`cannot start session ${sessionId}: ${(error as Error).message}`);
          }
          if (await this.#sessions.waitForLog(sessionId, RESTORE_WAIT_MS, closed.signal))
            found = await this.#sessions.idOfUuid(sessionId, fromParam);
        }
        if (!found) {
          // A delta (ephemeral): the client goes on after it, from the durable message it follows.
          const delta = await this.#sessions.liveEntryOfUuid(sessionId, fromParam);
          if (delta) [found, liveFrom] = [delta.after, delta.id];
        }
        if (!found) return refuse(`from=${fromParam.slice(0, 60)}: no such message in session ${sessionId}`);
        from = found;
        const last = await this.#client.lastEntry(sessionId);
        // What the client missed is replayed anyway: reading it here costs one more pass over it.
        catchUp =
          last?.message.type === 'agentpipe_session_end' &&
          compareStreamIds(last.id, from) > 0 &&
          (await this.#sessions.read(sessionId, from)).some((entry) => entry.message.type === 'result');
      }
    } else {
      sessionId = assigned ?? randomUUID();
    }
    const starting = this.#starting.get(sessionId);
    this.#starting.delete(sessionId);
    const warm = asked === null && this.#refills.has(sessionId);
    o.log(
      `agentpipe serve: connection ${id} from ${req.socket.remoteAddress ?? '?'}: session ` +
        `${sessionId}${asked ? ` (reconnected, from ${from})` : warm ? ' (a warm session)' : ''}`,
    );
    // Markers up to `startAt` end earlier runs (history); deltas are followed from `liveFrom`.
    let startAt = '0-0';
    if (asked === null) {
      // A new session (a fresh id: nothing of it is in Redis yet): input goes to the inbox at once, the follow
      // starts from the beginning while its job (queued at the upgrade) or its claim (a warm session) is confirmed.
      liveFrom = '0-0';
      known(sessionId);
    }
    try {
      let leftToRun = false;
      if (catchUp) {
        // The end marker after `from` is this connection's: it closes it unless input came in.
        startAt = from;
        liveFrom ??= await this.#sessions.lastLiveId(sessionId);
        known(sessionId);
      } else if (starting) await starting;
      else leftToRun = (await this.ensureRunning(sessionId, closed.signal)) === 'running';
      if (asked !== null && !catchUp) {
        // A run that ended has let go (ensureRunning waited for it): its end marker is history. Both ids are read
        // before this connection's input goes in, so nothing its input causes is missed.
        const [last, live] = await Promise.all([
          this.#client.lastEntry(sessionId),
          liveFrom ?? this.#sessions.lastLiveId(sessionId),
        ]);
        [startAt, liveFrom] = [last?.id ?? '0-0', live];
        // The run ensureRunning left this connection's input to ended since: its end marker, now history to this
        // connection, is the log's last entry, and no run would read the input (a reconnect as the run ends).
        if (leftToRun && last?.message.type === 'agentpipe_session_end')
          await this.ensureRunning(sessionId, closed.signal);
        known(sessionId);
      }
    } catch (error) {
      known(sessionId);
      return refuse(`cannot start session ${sessionId}: ${(error as Error).message}`);
    }
    const write = socketWriter(ws, closed.signal, o.highWaterBytes);
    // A warm session's replacement is queued once the answer to this connection's first prompt started.
    let refill = this.#refills.get(sessionId);
    const send = (message: LogMessage): Promise<void> => {
      if (refill && answers(message)) {
        refill();
        refill = undefined;
      }
      return write(`${JSON.stringify(message)}\n`);
    };
    let ended = false;
    try {
      for await (const { entry } of this.#sessions.follow(sessionId, from, closed.signal, {
        fromId: liveFrom ?? '0-0',
      })) {
        if (entry.message.type === 'agentpipe_session_end') {
          // An end before this connection's time (an earlier run) is history; one after it ends the connection.
          if (compareStreamIds(entry.id, startAt) > 0) runEnded = true;
          if (runEnded && (await this.#endsNow(sessionId, entry.id, pushing))) {
            ended = true;
            break;
          }
          continue;
        }
        if (!isInternal(entry.message)) await send(entry.message);
      }
    } catch (error) {
      if (!closed.signal.aborted)
        o.log(`agentpipe serve: connection ${id}: session ${sessionId}: ${(error as Error).message}`);
    }
    refill?.();
    await pushing;
    if (ws.readyState === ws.OPEN) ws.close(ended ? 1000 : 1011, ended ? 'session ended' : 'front end failed');
    o.log(`agentpipe serve: connection ${id} ended`);
  }

  /**
   * True when the end marker `markerId` ends the connection: it is the log's last entry (no later
   * run started) and no input waits in the inbox (once this connection's own input is in: input
   * sent as the run ended, e.g. a prompt right after a reconnect, gets a new run, started here).
   */
  async #endsNow(sessionId: string, markerId: string, pushing: Promise<void>): Promise<boolean> {
    await pushing;
    if ((await this.#sessions.lastId(sessionId)) !== markerId) return false;
    if (!(await this.#sessions.hasPendingInput(sessionId))) return true;
    // Input came in as the run ended: it gets a run (the worker may run the session again itself; a no-op then).
    await this.ensureRunning(sessionId).catch((error: unknown) =>
      this.#o.log(`agentpipe serve: session ${sessionId}: cannot start it: ${(error as Error).message}`),
    );
    return false;
  }

  async #push(sessionId: string, lines: string[], id: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#sessions.pushInput(sessionId, lines);
        return;
      } catch (error) {
        if (attempt >= 5) {
          this.#o.log(`agentpipe serve: connection ${id}: input lost: ${(error as Error).message}`);
          return;
        }
        await new Promise((r) => setTimeout(r, reconnectDelay(attempt)));
      }
    }
  }

  /**
   * Closes the queue and the Redis connections. The warm pool is not refilled; warm sessions no worker took yet are
   * removed from the queue, the ready ones end on their workers after their `warmMs`.
   */
  async close(): Promise<void> {
    this.#closing = true;
    const pool = this.#pool.splice(0);
    for (const warm of pool) {
      clearTimeout(warm.timer);
      warm.stop.abort();
    }
    await Promise.allSettled(pool.filter((w) => w.readyAt === undefined).map((w) => this.#client.removeWarm(w.id)));
    await this.#client.close();
  }
}
