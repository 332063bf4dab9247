/**
 * A PRIVATE redis-server for a test: a random free loopback port, a temp folder, append-only
 * persistence (no RDB snapshots). It is stopped and its folder removed after the test file (and
 * killed if the test process exits first); never a shared Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

/** The redis-server binary (Debian's package). */
export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** A running private server. */
export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>` (with the password when there is one). */
  url: string;
  dir: string;
  /** Stops the server (SIGTERM: Redis flushes its AOF and exits). */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL (what the AOF has synced survives: everything, with `fsync: 'always'`). */
  kill9(): Promise<void>;
  /** Starts it again on the same port and folder (the AOF is loaded back). */
  start(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves true once the server answers PING (or NOAUTH: it is up and wants a password). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
  });
}

/** How a private server keeps its data. */
export interface RedisServerOptions {
  /** Sets `--requirepass`. */
  password?: string;
  /** False: no persistence at all (a restart loses every key). Default true (append-only file). */
  persistence?: boolean;
  /** `appendfsync`: `always` makes every acknowledged write survive a SIGKILL. Default Redis's `everysec`. */
  fsync?: 'always' | 'everysec';
}

/** Starts a private server (see RedisServerOptions). */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;
  const launch = async (): Promise<void> => {
    const persistence = options.persistence === false ? ['--appendonly', 'no'] : ['--appendonly', 'yes'];
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...persistence, '--save', ''];
    if (options.fsync) args.push('--appendfsync', options.fsync);
    args.push('--daemonize', 'no', '--loglevel', 'warning');
    if (options.password) args.push('--requirepass', options.password);
    const proc = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    live.add(proc);
    let exited = false;
    proc.once('exit', () => {
      exited = true;
      live.delete(proc);
    });
    child = proc;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (exited) throw new Error(`redis-server on port ${port} exited at start: ${stderr}`);
      if (await answers(port)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    proc.kill('SIGKILL');
    throw new Error(`redis-server on port ${port} did not answer PING within 10 s: ${stderr}`);
  };
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const stop = (): Promise<void> => end('SIGTERM');
  // A port may be taken between freePort() and the bind: try a few.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  after(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  return { port, dir, url: `redis://${auth}127.0.0.1:${port}`, stop, kill9: () => end('SIGKILL'), start: launch };
}
