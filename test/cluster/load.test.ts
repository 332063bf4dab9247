/**
 * The cluster under load, as issue 15 asks: 3 workers and 2 front ends as separate processes, 200
 * concurrent scripted sessions over WebSocket with a tool call and streamed text; one worker is
 * killed with SIGKILL mid-turn and one front end is killed and its clients reconnect to the other.
 * Every prompt ends with exactly one result and no client gets a message twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, sessionOf, startFrontEnd, startWorker, uuids } from './cluster.ts';

const SESSIONS = 200;

/** One session's client, which moves to `fallback` when its front end dies before the session ended. */
class Session {
  readonly messages: Array<Record<string, any>> = [];
  #client: Client;
  #ended = false;

  constructor(url: string) {
    this.#client = new Client(url);
  }

  async start(): Promise<void> {
    await this.#client.open();
    this.#client.send(prompt('read the notes') + '{"type":"end_input"}\n');
  }

  /** The session's id, once a message carried it. */
  id(): string | undefined {
    const seen = [...this.messages, ...this.#client.messages];
    return seen.find((m) => typeof m.session_id === 'string')?.session_id as string | undefined;
  }

  /** The types of the last messages this session's clients got, for a report. */
  describe(): string {
    const seen = [...this.messages, ...this.#client.messages];
    const id = this.id();
    return `${id ?? '(no id)'}: ${seen.length} messages, last: ${seen
      .slice(-6)
      .map((m) => m.type)
      .join(',')}`;
  }

  /** True once the first message (with the session id) arrived. */
  get known(): boolean {
    return this.#client.messages.length > 0;
  }

  /** Resolves when the session ended (the front end closed the socket normally); false when the socket was lost. */
  async settle(): Promise<boolean> {
    const closed = await this.#client.closed;
    this.messages.push(...this.#client.messages);
    this.#ended = closed.code === 1000;
    return this.#ended;
  }

  /**
   * Reconnects to another front end after the last message received, and says again that it is
   * done (`end_input`): a client cut off before its result gets the rest of its run, and a reconnect
   * that finds the run over starts a new run, which this ends at once; either way the close follows.
   */
  async reconnect(url: string): Promise<void> {
    // The last message the log keeps (deltas and heartbeats are live only, not a place to resume from).
    const last = this.messages
      .filter((m) => typeof m.uuid === 'string' && m.type !== 'stream_event' && m.type !== 'tool_progress')
      .at(-1);
    this.#client = new Client(`${url}?session=${sessionOf(this.messages)}${last ? `&from=${last.uuid}` : ''}`);
    const client = this.#client;
    if (
      await client.open().then(
        () => true,
        () => false,
      )
    )
      client.send('{"type":"end_input"}\n');
  }
}

test(
  `${SESSIONS} sessions on 3 workers and 2 front ends: a worker killed mid-turn, a front end killed; one ` +
    `result per prompt, nothing twice`,
  { timeout: 170_000 },
  async () => {
    const redis = await startRedis();
    const dir = tempDir();
    writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\n');
    const script = writeScript(dir, [
      { tool_calls: [{ id: 'toolu_read', name: 'Read', input: { file_path: 'notes.txt' } }], delay_ms: 400 },
      { text: 'The notes say one and two.', chunk_size: 4 },
    ]);
    const flags = ['--model', 'scripted', '--script', script, '--cwd', dir, '--include-partial-messages'];
    const workers = await Promise.all([0, 1, 2].map(() => startWorker(redis.url, {}, ['--concurrency', '70'])));
    const fronts = await Promise.all([0, 1].map(() => startFrontEnd(redis.url, flags)));
    try {
      const sessions = Array.from({ length: SESSIONS }, (_, i) => new Session(fronts[i % 2]!.url));
      await Promise.all(sessions.map((s) => s.start()));
      // Every session runs (its client has its id), each in its first turn (the Read waits 400 ms):
      // kill a worker, then the second front end.
      const deadline = Date.now() + 60_000;
      while (!sessions.every((s) => s.known)) {
        assert.ok(Date.now() < deadline, `${sessions.filter((s) => !s.known).length} sessions never started`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await kill9(workers[0]!);
      await kill9(fronts[1]!);
      const survivors = fronts[0]!.url;
      const settled = new Set<Session>();
      const attempts = new Map<Session, number>();
      const all = Promise.all(
        sessions.map(async (session) => {
          for (let attempt = 0; !(await session.settle()); attempt++) {
            assert.ok(attempt < 5, 'a session was lost');
            attempts.set(session, attempt + 1);
            await session.reconnect(survivors);
          }
          settled.add(session);
        }),
      );
      // Not a silent test timeout: after 120 s, say which sessions are still open and where they stand.
      let watchdog: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => {
        watchdog = setTimeout(() => {
          const open = sessions.filter((s) => !settled.has(s));
          const logs = [...workers, ...fronts].map((cli, i) => ({
            who: i < workers.length ? `worker ${i}` : `front end ${i - workers.length}`,
            lines: cli.stderr().split('\n'),
          }));
          const report = open.slice(0, 5).map((s) => {
            const id = s.id();
            const said = logs.flatMap(({ who, lines }) =>
              id ? lines.filter((line) => line.includes(id)).map((line) => `    ${who}: ${line}`) : [],
            );
            return `${s.describe()} (${attempts.get(s) ?? 0} reconnects)\n${said.slice(-20).join('\n')}`;
          });
          reject(new Error(`${open.length} sessions not ended after 120 s:\n${report.join('\n')}`));
        }, 120_000);
      });
      try {
        await Promise.race([all, stuck]);
      } finally {
        clearTimeout(watchdog);
      }
      for (const session of sessions) {
        const results = session.messages.filter((m) => m.type === 'result');
        assert.equal(
          results.length,
          1,
          `one result, got ${results.length}: ${session.messages.map((m) => m.type).join(',')}`,
        );
        const ids = uuids(session.messages);
        assert.equal(new Set(ids).size, ids.length, 'no message twice');
      }
      const cut = sessions.filter((s) => s.messages.some((m) => m.type === 'result' && m.is_error));
      const done = sessions.filter((s) =>
        s.messages.some((m) => m.type === 'result' && m.result === 'The notes say one and two.'),
      );
      assert.equal(cut.length + done.length, SESSIONS);
    } finally {
      for (const cli of [...workers, ...fronts]) await kill9(cli);
      await redis.stop();
    }
  },
);
