/**
 * Processes of a cluster test: `agentpipe worker` and `agentpipe serve --redis` started from
 * bin/agentpipe.js (short lock, stall and lease times so a takeover takes seconds), a WebSocket
 * client that records every line, and a SIGKILL of whatever is left after the test file.
 */
import type { ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import WebSocket from 'ws';
import { watchedCli } from '../transport/ws-helpers.ts';

/**
 * Worker tuning for tests: a dead worker's sessions are taken over within about 5 s. The lease is long enough that a
 * run on a loaded machine still renews it in time (a run stops, its tools killed, when none landed for 3/4 of it).
 */
export const FAST_TAKEOVER = {
  AGENTPIPE_WORKER_LOCK_MS: '2000',
  AGENTPIPE_WORKER_STALLED_MS: '1000',
  AGENTPIPE_LEASE_MS: '4000',
  AGENTPIPE_SESSION_IDLE_MS: '60000',
};

const started = new Set<ChildProcess>();
const killAll = (): void => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
process.once('exit', killAll);
after(killAll);

/** A CLI process of the cluster, killed after the test file at the latest. */
export type ClusterProcess = ReturnType<typeof watchedCli>;

/** Starts `agentpipe worker` and waits until it takes jobs. */
export async function startWorker(
  redis: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<ClusterProcess> {
  const cli = watchedCli(['worker', '--redis', redis, ...args], { ...FAST_TAKEOVER, ...env });
  started.add(cli.child);
  await cli.waitFor(/taking sessions from/);
  return cli;
}

/**
 * Starts `agentpipe serve --redis` (loopback; no token unless `access` says otherwise) with session flags; returns it
 * and its ws:// URL.
 */
export async function startFrontEnd(
  redis: string,
  flags: string[],
  env: Record<string, string> = {},
  access: string[] = ['--no-token'],
): Promise<ClusterProcess & { url: string }> {
  const cli = watchedCli(['serve', '--redis', redis, '--port', '0', ...access, ...flags], env);
  started.add(cli.child);
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  return Object.assign(cli, { url: url! });
}

/** Kills a process with SIGKILL and waits until it is gone. */
export async function kill9(cli: ClusterProcess): Promise<void> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  await cli.exited;
}

/**
 * A Bash command that runs until the file `release` appears in its folder (at most a minute): a tool call still
 * running whenever the test kills its worker, however loaded the machine; the test releases it when done.
 */
export const UNTIL_RELEASED = 'for i in $(seq 600); do [ -e release ] && exit 0; sleep 0.1; done';

/** The lines of a user prompt. */
export const prompt = (text: string): string =>
  JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' }) +
  '\n';

/** A WebSocket client that records every message it is sent (keep_alive lines left out). */
export class Client {
  readonly messages: Array<Record<string, any>> = [];
  /** The session id the upgrade response named (before any message). */
  sessionId?: string;
  readonly ws: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #waiters = new Set<() => void>();

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('upgrade', (res) => (this.sessionId = res.headers['x-agentpipe-session-id']?.toString()));
    this.ws.on('message', (data) => {
      for (const line of data.toString().split('\n').filter(Boolean)) {
        const message = JSON.parse(line) as Record<string, any>;
        if (message.type !== 'keep_alive') this.messages.push(message);
      }
      for (const wake of this.#waiters) wake();
    });
    this.ws.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      this.ws.on('close', (code, reason) => {
        for (const wake of this.#waiters) wake();
        resolve({ code, reason: reason.toString() });
      }),
    );
  }

  /** Resolves once the socket is open. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState === WebSocket.OPEN) return resolve();
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }

  send(text: string): void {
    this.ws.send(text);
  }

  /** The results received so far. */
  results(): Array<Record<string, any>> {
    return this.messages.filter((m) => m.type === 'result');
  }

  /** Waits until `check` holds (fails with `what` after `timeoutMs`). */
  async until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}; got: ${this.messages.map((m) => m.type).join(', ')}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 200));
        this.#waiters.add(done);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
      }).finally(() => this.#waiters.clear());
    }
  }
}

/** The session id the messages carry. */
export const sessionOf = (messages: Array<Record<string, any>>): string => {
  const id = messages.find((m) => typeof m.session_id === 'string' && m.session_id)?.session_id as string | undefined;
  if (!id) throw new Error('no message carries a session id');
  return id;
};

/** Asserts helper: the uuids of messages that have one. */
export const uuids = (messages: Array<Record<string, any>>): string[] =>
  messages.flatMap((m) => (typeof m.uuid === 'string' ? [m.uuid] : []));

/** Waits until `check` holds, asking again every 50 ms (fails with `what` after `timeoutMs`). */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
