/**
 * The cluster in `npm run bench`: a private redis-server, 1, 2 and 4 `agentpipe worker`s behind one
 * `serve --redis` front end, against one plain `agentpipe serve` (the single process), with the
 * same scripted sessions over WebSocket: sessions per second of a burst, and the time from a
 * prompt to its first delta (p50, p99) of sessions run one at a time, each right after the other
 * (and how many of those took one of the front end's warm sessions). Skipped without redis-server.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';

/** What one configuration measured: throughput of a burst, and the first-delta latency of sessions one at a time. */
export interface ClusterFigures {
  sessionsPerSecond: number;
  firstDeltaP50: number;
  firstDeltaP99: number;
  /** Of the sessions run one at a time, how many took a warm session (the front end says so on stderr). */
  warmSessions?: number;
}

/**
 * Sessions run one after another for the latency figures (a burst measures queueing, not the hop), each right after
 * the previous one closed, as a client that opens sessions one at a time would: a session finds a warm one only if the
 * front end's pool was refilled in time.
 */
export const SEQUENTIAL = 50;

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A CLI process that is ready once its stderr says `ready`. */
async function startCli(
  cli: string,
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; stderr: () => string }> {
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start: ${stderr}`)), 15_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = ready.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', () => reject(new Error(`${args[0]} exited: ${stderr}`)));
  });
  return { child, match, stderr: () => stderr };
}

/**
 * Runs `count` sessions at once, each one prompt; resolves with their first-delta latencies and the seconds it took.
 */
async function burst(url: string, count: number): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(url);
          let sent = 0;
          let first = true;
          ws.on('open', () => {
            sent = performance.now();
            ws.send(
              JSON.stringify({
                type: 'user',
                message: { role: 'user', content: 'hi' },
                parent_tool_use_id: null,
                session_id: '',
              }) + '\n{"type":"end_input"}\n',
            );
          });
          ws.on('message', (data) => {
            for (const line of data.toString().split('\n')) {
              if (first && line.includes('"content_block_delta"')) {
                first = false;
                latencies.push(performance.now() - sent);
              }
            }
          });
          ws.on('close', () => resolve());
          ws.on('error', reject);
        }),
    ),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/**
 * Sessions/s of a burst of `count`, and the first-delta latency of sessions run one at a time (with `stderr`, the
 * front end's: how many of those took a warm session).
 */
async function runSessions(url: string, count: number, stderr?: () => string): Promise<ClusterFigures> {
  const { seconds } = await burst(url, count);
  const warm = (): number => stderr?.().match(/\(a warm session\)/g)?.length ?? 0;
  const warmBefore = warm();
  const latencies: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) latencies.push(...(await burst(url, 1)).latencies);
  return {
    sessionsPerSecond: count / seconds,
    firstDeltaP50: quantile(latencies, 0.5),
    firstDeltaP99: quantile(latencies, 0.99),
    ...(stderr ? { warmSessions: warm() - warmBefore } : {}),
  };
}

/** The single-process figures, then the cluster's with each worker count; undefined without redis-server. */
export async function benchCluster(
  cli: string,
  script: string,
  sessions: number,
): Promise<{ single: ClusterFigures; cluster: Array<[number, ClusterFigures]> } | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-bench-redis-'));
  const port = await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'],
    { stdio: 'ignore' },
  );
  const env = { ...process.env, ANTHROPIC_API_KEY: '', AGENTPIPE_HOME: dir };
  const flags = [
    '--model',
    'scripted',
    '--script',
    script,
    '--include-partial-messages',
    '--no-token',
    '--port',
    '0',
    '--no-session-persistence',
  ];
  const children: ChildProcess[] = [redis];
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const single = await startCli(cli, ['serve', ...flags], /listening on (ws:\/\/\S+)/, env);
    children.push(single.child);
    await burst(single.match[1]!, 5); // warm-up
    const singleFigures = await runSessions(single.match[1]!, sessions);
    single.child.kill('SIGKILL');
    const redisUrl = `redis://127.0.0.1:${port}`;
    const front = await startCli(
      cli,
      ['serve', '--redis', redisUrl, ...flags.filter((f) => f !== '--no-session-persistence')],
      /listening on (ws:\/\/\S+)/,
      env,
    );
    children.push(front.child);
    const cluster: Array<[number, ClusterFigures]> = [];
    const workers: ChildProcess[] = [];
    for (const count of [1, 2, 4]) {
      while (workers.length < count) {
        const worker = await startCli(
          cli,
          ['worker', '--redis', redisUrl, '--concurrency', '64'],
          /taking sessions from/,
          env,
        );
        workers.push(worker.child);
        children.push(worker.child);
      }
      await burst(front.match[1]!, 5); // warm-up
      cluster.push([count, await runSessions(front.match[1]!, sessions, front.stderr)]);
    }
    return { single: singleFigures, cluster };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
