/**
 * `agentpipe serve --redis`: a stateless front end. A WebSocket connection is a session of the
 * cluster: a new one gets a fresh id (or a warm session, warm-pool.ts) and a job on the sessions
 * queue (a worker runs it); the client's input lines go to the session's inbox; what it is sent is
 * the session's log from where it asks, then the log and its live deltas as they are appended
 * (connection.ts). Nothing of the session lives here, so a client may reconnect to any front end:
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
 * When Redis loses its data (restarted without persistence), every connection is told: a prompt
 * it sent that has no result gets an error result, and the socket closes with the reason.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import type { SessionOptions } from '../../session/options.ts';
import { envCount, envMs, MAX_TIMER_MS } from '../../process/env-number.ts';
import { errorMessage } from '../../process/errors.ts';
import { UUID_PATTERN } from '../../messages/ids.ts';
import { DATA_LOST } from '../log/index.ts';
import { jobOptions, type SessionJob, type StreamFlags } from '../jobs.ts';
import { bounded } from '../bounded.ts';
import { retryRedis } from '../redis-retry.ts';
import { claimLine, ClusterClient } from '../session-client.ts';
import type { Telemetry } from '../../telemetry/types.ts';
import { FrontConnection } from './connection.ts';
import { PromptSpans } from './prompt-spans.ts';
import { WarmPool } from './warm-pool.ts';

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
  /**
   * How long a session's start and a client's input are retried through a lost Redis connection before the client is
   * told. Default AGENTPIPE_FRONT_END_RETRY_MS, else 10 s.
   */
  retryMs?: number;
}

/** A front end on one Redis: connects at `open` (a clear RedisConnectionError when it cannot). */
export class ClusterFrontEnd {
  readonly #o: FrontEndOptions;
  readonly #client: ClusterClient;
  readonly #pool: WarmPool;
  readonly #retryMs: number;
  /** Starts begun at the upgrade of a new session's connection (its job, or its warm claim), until it takes them. */
  readonly #starting = new Map<string, Promise<void>>();
  readonly #connections = new Set<FrontConnection>();
  #stopWatch: () => void = () => undefined;
  /** Telemetry on (`--otel`, OTEL_* variables): each prompt's span, the parent of the worker's (prompt-spans.ts). */
  readonly #telemetry?: Telemetry;

  private constructor(o: FrontEndOptions, client: ClusterClient, telemetry: Telemetry | undefined) {
    this.#o = o;
    this.#client = client;
    this.#telemetry = telemetry;
    this.#retryMs = o.retryMs ?? envMs('AGENTPIPE_FRONT_END_RETRY_MS', 10_000);
    this.#pool = new WarmPool({
      client,
      size: o.warm ?? envCount('AGENTPIPE_WARM_SESSIONS', 1),
      warmMs: Math.min(o.warmMs ?? envMs('AGENTPIPE_WARM_MS', 60_000), MAX_TIMER_MS),
      job: (sessionId) => this.#job(sessionId),
      print: o.log,
    });
  }

  /** Connects to Redis (bounded: fails within seconds), opens the queue and starts filling the warm pool. */
  static async open(o: FrontEndOptions): Promise<ClusterFrontEnd> {
    const client = await ClusterClient.open({ redis: o.redis, log: o.log });
    await client.sessions.warm();
    const front = new ClusterFrontEnd(o, client, await frontEndTelemetry(o));
    const watch = await client.sessions.watchDataLoss(() => {
      o.log(`agentpipe serve: ${DATA_LOST}; closing its ${front.#connections.size} connection(s)`);
      for (const connection of front.#connections) connection.dataLost();
    });
    front.#stopWatch = watch.stop;
    front.#pool.fill();
    return front;
  }

  /**
   * Makes sure a worker runs the session: a no-op while its job waits or runs; while a run that ended is still letting
   * go, it waits for that job and queues a new run (ClusterClient.start). `fresh`: an id no run had yet. Retried
   * through a lost Redis connection.
   */
  ensureRunning(sessionId: string, signal?: AbortSignal, fresh = false): Promise<'new' | 'pending' | 'running'> {
    return retryRedis(() => this.#client.start(this.#job(sessionId), 30_000, signal, fresh), {
      forMs: this.#retryMs,
      signal,
    });
  }

  #job(sessionId: string): SessionJob {
    return { sessionId, options: jobOptions(this.#o.options), stream: this.#o.stream };
  }

  /**
   * The session a connection is for (told in the upgrade response): the one it names, else a new one; undefined for a
   * bad name. A new session's start begins now (a warm one claimed, else its job queued), so a worker starts it while
   * the handshake completes.
   */
  sessionIdFor(req: IncomingMessage): string | undefined {
    const asked = new URL(req.url ?? '/', 'http://localhost').searchParams.get('session');
    if (asked !== null) return UUID_PATTERN.test(asked) ? asked : undefined;
    const warm = this.#pool.take();
    const sessionId = warm ?? randomUUID();
    const starting = warm ? this.#claim(warm) : this.ensureRunning(sessionId, undefined, true).then(() => undefined);
    starting.catch(() => undefined); // said by the connection, which awaits it
    this.#starting.set(sessionId, starting);
    setTimeout(() => this.#starting.delete(sessionId), 60_000).unref();
    return sessionId;
  }

  /**
   * Claims a warm session for its connection (retried through a blip: a claim is idempotent); one that ended meanwhile
   * (discarded) is started as a new session. A claim that fails for good releases the pooled mark.
   */
  async #claim(sessionId: string): Promise<void> {
    const job = this.#job(sessionId);
    const claim = claimLine();
    try {
      const claimed = await retryRedis(() => this.#client.takeWarm(job, claim), { forMs: this.#retryMs });
      if (!claimed)
        this.#o.log(`agentpipe serve: warm session ${sessionId} had ended as it was taken; started it anew`);
    } catch (error) {
      // Best effort (Redis may still be away: the warm session's worker deletes the mark when it ends it).
      await retryRedis(() => this.#client.sessions.unmarkPooled(sessionId), { forMs: 1000 }).catch(() => undefined);
      throw error;
    }
  }

  /** Serves one WebSocket connection (see connection.ts); resolves when it closed. */
  async serveConnection(ws: WebSocket, req: IncomingMessage, id: number, assigned?: string): Promise<void> {
    const connection = new FrontConnection(
      {
        client: this.#client,
        print: this.#o.log,
        highWaterBytes: this.#o.highWaterBytes,
        retryMs: this.#retryMs,
        ensureRunning: (sessionId, signal) => this.ensureRunning(sessionId, signal),
        takeStarting: (sessionId) => {
          const starting = this.#starting.get(sessionId);
          this.#starting.delete(sessionId);
          return starting;
        },
        refillFor: (sessionId) => this.#pool.refillFor(sessionId),
        ...(this.#telemetry
          ? { promptSpans: () => new PromptSpans(this.#telemetry!, this.#o.options.model ?? '') }
          : {}),
      },
      ws,
      req,
      id,
      assigned,
    );
    this.#connections.add(connection);
    try {
      await connection.serve();
    } catch (error) {
      this.#o.log(`agentpipe serve: connection ${id}: ${errorMessage(error)}`);
      if (ws.readyState === ws.OPEN) ws.close(1011, 'front end failed');
    } finally {
      this.#connections.delete(connection);
    }
  }

  /**
   * Closes the queue and the Redis connections. The warm pool is not refilled; warm sessions no worker took yet are
   * removed from the queue, the ready ones end on their workers after their `warmMs`.
   */
  async close(): Promise<void> {
    this.#stopWatch();
    // Each step bounded: with Redis gone, a front end told to stop still stops.
    const ms = envMs('AGENTPIPE_HAND_BACK_MS', 5000);
    const late = (what: string) => () => this.#o.log(`agentpipe serve: ${what}: not done within ${ms} ms`);
    await bounded(this.#pool.close(), ms, late('removing the warm sessions no worker took'));
    await bounded(this.#client.close(), ms, late('closing the queue and Redis connections'));
    // Bounded itself: the spans of the last prompts are sent before the process ends.
    if (this.#telemetry) await this.#telemetry.shutdown();
  }
}

/** The front end's telemetry, when its session options ask for it (the SDK loads only then); off if it cannot start. */
async function frontEndTelemetry(o: FrontEndOptions): Promise<Telemetry | undefined> {
  if (o.options.telemetry === undefined || o.options.telemetry === false) return undefined;
  try {
    const { loadTelemetry } = await import('../../telemetry/load.ts');
    return await loadTelemetry(o.options.telemetry, process.env, o.log);
  } catch (error) {
    o.log(`agentpipe serve: warning: telemetry is off: ${errorMessage(error)}`);
    return undefined;
  }
}
