/**
 * Redis connections for the cluster pieces, with bounded failure: the first connect gives up
 * after `connectTimeoutMs` with a clear error (refused, wrong password, timed out); once
 * connected, the client reconnects forever with capped exponential backoff (a restarted Redis
 * is picked up again), while each command fails after `maxRetriesPerRequest` reconnect attempts
 * instead of waiting forever. ioredis is imported lazily: only a Redis option loads it.
 */
import { AgentpipeError, errorMessage } from '../process/errors.ts';
import { isRecord, str } from '../process/guards.ts';
import { atMost } from '../process/retry.ts';
import type { Redis, RedisOptions } from 'ioredis';

/** Where to connect: a `redis://` / `rediss://` URL, or a client the caller owns (never closed here). */
export type RedisTarget = string | Redis;

/** Connection tuning; the defaults suit workers on a LAN. */
export interface RedisConnectionOptions {
  /** Give up the first connect (and each reconnect attempt's socket) after this long. Default 3000 ms. */
  connectTimeoutMs?: number;
  /** Reconnect attempts a command waits through before it fails. Default 3. */
  maxRetriesPerRequest?: number;
  /** A non-blocking command without a reply for this long fails. Default 10000 ms. */
  commandTimeoutMs?: number;
  /**
   * Batch the commands issued in one tick into one write (ioredis auto-pipelining). Default true.
   * False writes each command at once: a worker's appends must not wait for the session's burst
   * of work in the same tick (the client's first delta would).
   */
  autoPipelining?: boolean;
  /**
   * Hold commands while the connection is down and send them once it is back (ioredis's offline queue). Default true.
   * False fails them at once: a client that gives a command up (retry.ts) knows it will never land later (a front
   * end that told a client its session could not start must not start it a moment later).
   */
  offlineQueue?: boolean;
}

/** Redis could not be reached, refused the credentials, or went away for too long. */
export class RedisConnectionError extends AgentpipeError {
  static override readonly errorName: string = 'RedisConnectionError';
}

/** Reconnect delay: 50 ms doubling up to 2 s, with jitter, forever (workers outlive Redis restarts). */
export function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** Math.min(attempt, 10), 2000) + Math.floor(Math.random() * 50);
}

/** `redis://host:port/db` without the credentials (for messages). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '<invalid Redis URL>';
  }
}

/** Where a client points, for messages. */
export function describeTarget(client: Redis): string {
  const { host, port, db } = client.options;
  return `redis://${host ?? '127.0.0.1'}:${port ?? 6379}${db ? `/${db}` : ''}`;
}

/** A one-line reason for a Redis or socket error. */
export function explainRedisError(error: unknown): string {
  const e = isRecord(error) ? error : undefined;
  const message = str(e?.message) ?? String(error);
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message))
    return `authentication failed: wrong password (${message})`;
  if (/NOAUTH/i.test(message))
    return `authentication required: the server has a password and none was given (${message})`;
  if (e?.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message))
    return `connection refused: is redis-server running there? (${message})`;
  if (e?.code === 'ENOTFOUND' || /ENOTFOUND|EAI_AGAIN/.test(message)) return `host not found (${message})`;
  if (e?.code === 'ETIMEDOUT' || /ETIMEDOUT|timed out/i.test(message)) return `timed out (${message})`;
  return message;
}

const CONNECTION_FAILURE = new RegExp(
  [
    'Connection is closed',
    'max retries per request',
    'MaxRetriesPerRequest',
    'Command timed out',
    "Stream isn't writeable",
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ETIMEDOUT',
    'ENOTFOUND',
    'WRONGPASS',
    'NOAUTH',
    'LOADING',
  ].join('|'),
  'i',
);

/** True when `error` means the connection failed (rather than a command error such as a script's reply). */
export function isConnectionFailure(error: unknown): boolean {
  const e = isRecord(error) ? error : undefined;
  return e?.name === 'MaxRetriesPerRequestError' || CONNECTION_FAILURE.test(str(e?.message) ?? '');
}

/** A connected client with the last connection error it saw (errors arrive as events, commands only say "closed"). */
export interface Connection {
  client: Redis;
  /** Whether this module created the client (then `close()` quits it). */
  owned: boolean;
  lastError(): unknown;
  /** The error to throw for a failed command: a RedisConnectionError naming the server and the cause. */
  wrap(error: unknown): unknown;
  close(): Promise<void>;
}

function track(client: Redis, owned: boolean): Connection {
  let last: unknown;
  client.on('error', (error: unknown) => (last = error));
  client.on('ready', () => (last = undefined));
  const where = describeTarget(client);
  return {
    client,
    owned,
    lastError: () => last,
    wrap(error) {
      if (RedisConnectionError.isInstance(error) || !isConnectionFailure(error)) return error;
      const cause = last ?? error;
      return new RedisConnectionError(`Redis at ${where} is unavailable: ${explainRedisError(cause)}`, { cause });
    },
    async close() {
      if (!owned) return;
      // QUIT waits for pending replies; a dead server must not hold us, so bound it.
      if (client.status === 'ready') {
        await atMost(
          // Disconnect() below ends it either way.
          client.quit().catch(() => undefined),
          500,
        );
      }
      client.disconnect();
    },
  };
}

/** Options ioredis gets for a connection of ours. */
function clientOptions(options: RedisConnectionOptions, blocking: boolean): RedisOptions {
  return {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 3000,
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 3,
    retryStrategy: reconnectDelay,
    // Blocking reads (XREAD BLOCK) must not hit the command timeout: they get BLOCK + grace instead.
    ...(blocking
      ? { blockingTimeout: 1, blockingTimeoutGrace: 2000 }
      : { commandTimeout: options.commandTimeoutMs ?? 10_000 }),
    enableAutoPipelining: !blocking && options.autoPipelining !== false,
    enableOfflineQueue: options.offlineQueue !== false,
    connectionName: blocking ? 'agentpipe-tail' : 'agentpipe',
  };
}

/** Connects within a bounded time or throws a RedisConnectionError that says why. */
async function connect(client: Redis, where: string, timeoutMs: number): Promise<Connection> {
  const connection = track(client, true);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs)),
      ),
    ]);
    // The handshake (AUTH, SELECT) can fail after the socket connects: ask the server once.
    await client.ping();
    return connection;
  } catch (error) {
    client.disconnect();
    const cause = connection.lastError() ?? error;
    throw new RedisConnectionError(`cannot connect to Redis at ${where}: ${explainRedisError(cause)}`, { cause });
  } finally {
    clearTimeout(timer);
  }
}

/** Opens a connection to `target` (a URL: a new client of ours; a client: used as it is, not closed by us). */
export async function openRedis(target: RedisTarget, options: RedisConnectionOptions = {}): Promise<Connection> {
  if (typeof target !== 'string') return track(target, false);
  const { Redis } = await import('ioredis');
  const where = redactUrl(target);
  let client: Redis;
  try {
    client = new Redis(target, clientOptions(options, false));
  } catch (error) {
    throw new RedisConnectionError(`invalid Redis URL ${where}: ${errorMessage(error)}`, { cause: error });
  }
  return connect(client, where, (options.connectTimeoutMs ?? 3000) + 1000);
}

/** A dedicated connection for blocking reads, to the same server as `base` (blocking reads hold their connection). */
export async function openBlocking(base: Redis, options: RedisConnectionOptions = {}): Promise<Connection> {
  const client = base.duplicate(clientOptions(options, true));
  return connect(client, describeTarget(base), (options.connectTimeoutMs ?? 3000) + 1000);
}

/**
 * True when the Redis at `url` answers without a password (tried without the URL's credentials, once, within
 * `timeoutMs`); false when it wants one, cannot be reached, or the URL is not valid (the real connection says why).
 */
export async function acceptsWithoutPassword(url: string, timeoutMs = 3000): Promise<boolean> {
  let bare: string;
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    bare = parsed.toString();
  } catch {
    return false;
  }
  const { Redis } = await import('ioredis');
  const probe = new Redis(bare, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectionName: 'agentpipe-probe',
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Says once, on `log`, when the Redis at `url` lets anyone who can reach it in without a password. */
export async function warnIfPasswordless(url: string, who: string, log: (line: string) => void): Promise<void> {
  if (!(await acceptsWithoutPassword(url))) return;
  log(
    `${who}: warning: the Redis at ${redactUrl(url)} accepts commands without a password: anyone who can connect ` +
      'to it can read every session and send prompts to them. Set requirepass (or an ACL user) and give it in the ' +
      'URL (redis://:password@host:port)',
  );
}
