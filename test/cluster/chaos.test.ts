/**
 * The cluster under chaos (issue 28's acceptance test): 3 workers and 2 front ends as separate
 * processes, 120 sessions of 4 prompts over WebSocket, each prompt's Bash call appending a fresh
 * token to one ledger file. While they run, a worker is killed with SIGKILL every few seconds (and
 * a new one started), Redis is restarted once from its append-only file and once killed with
 * SIGKILL (appendfsync always: what it acknowledged survives), and a front end is killed (its
 * clients reconnect to the other). Then, from the clients, the logs and the ledger:
 * - every tool call started exactly once (one journal line) and has exactly one result: its own
 *   token (it ran and its result was recorded) or the unknown outcome (its worker was lost);
 * - every token in the ledger comes from one call: the recorded ones once each, the others no more
 *   than the calls of unknown outcome;
 * - every prompt has exactly one result, a success (the takeover continued it), the log's;
 * - every client got its close (1000) after its last prompt.
 */
import { test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SessionLog, type LogMessage } from '../../src/cluster/redis.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, sessionOf, startFrontEnd, startWorker, uuids, type ClusterProcess } from './cluster.ts';

const SESSIONS = 120;
const PROMPTS = 4;
/** Workers killed, one every 2.5 s. */
const KILLS = 8;
const UNKNOWN = /^The outcome of this tool call is unknown/;

/** One session's client: 4 prompts one after the other, reconnecting to the other front end when its own dies. */
class Session {
  readonly messages: Array<Record<string, any>> = [];
  #client: Client;
  #urls: () => string[];
  constructor(urls: () => string[]) {
    this.#urls = urls;
    this.#client = this.#connect(urls()[0]!);
  }

  #connect(url: string): Client {
    const client = new Client(url);
    client.ws.on('message', () => this.#pump());
    return client;
  }

  results(): Array<Record<string, any>> {
    return [...this.messages, ...this.#client.messages].filter((m) => m.type === 'result');
  }

  #sent = 0;
  #sessionId?: string;
  /** Each prompt's uuid: a prompt sent again after a reconnect is the same prompt (the session runs it once). */
  readonly #uuids = Array.from({ length: PROMPTS }, () => randomUUID());
  /** Sends the next prompt once the previous one has its result; `end_input` after the last. */
  #pump(): void {
    const done = this.results().length;
    if (done < this.#sent || this.#client.ws.readyState !== this.#client.ws.OPEN) return;
    if (this.#sent < PROMPTS) {
      const line = JSON.parse(prompt(`step ${this.#sent}`)) as Record<string, unknown>;
      this.#client.send(`${JSON.stringify({ ...line, uuid: this.#uuids[this.#sent++] })}\n`);
    } else if (this.#sent++ === PROMPTS) this.#client.send('{"type":"end_input"}\n');
  }

  async start(): Promise<void> {
    await this.#client.open();
    this.#pump();
  }

  /** Resolves once the session ended (a normal close); reconnects after anything else. */
  async settle(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const closed = await this.#client.closed;
      this.messages.push(...this.#client.messages);
      // The session's id: named by the upgrade response (a client cut off before its first message has it too).
      this.#sessionId ??= this.#client.sessionId;
      if (closed.code === 1000) return;
      assert.ok(attempt < 10, `session lost: closed ${closed.code} ${closed.reason}`);
      const last = this.messages.filter((m) => typeof m.uuid === 'string' && m.type !== 'stream_event').at(-1);
      const url = this.#urls().at(-1)!;
      const session = this.#sessionId ?? sessionOf(this.messages);
      this.#client = this.#connect(`${url}?session=${session}${last ? `&from=${last.uuid}` : ''}`);
      // A prompt sent into the dropped connection may not have reached the inbox: sent again if no result came.
      this.#sent = Math.min(this.#sent, this.results().length);
      if (
        await this.#client.open().then(
          () => true,
          () => false,
        )
      )
        this.#pump();
    }
  }
}

test(
  `chaos: ${SESSIONS} sessions x ${PROMPTS} prompts, 3 workers (SIGKILLed every few seconds), 2 front ends (one ` +
    'killed), Redis restarted and SIGKILLed: every call once or unknown, every prompt one successful result',
  { timeout: 175_000 },
  async (t) => {
    const redis = await startRedis({ fsync: 'always' });
    const dir = tempDir();
    const ledger = path.join(dir, 'ledger.txt');
    writeFileSync(ledger, '');
    // The protected folders the OS sandbox otherwise makes as mount points for each command and removes after it:
    // shared by the runs of one process, but not across the workers of one machine in one folder, where one worker's
    // removal races another's mount ("bwrap: Can't find source path .../.claude"), a sandbox matter this test is not
    // about (see the report of branch cluster).
    for (const name of ['.agentpipe', '.claude']) mkdirSync(path.join(dir, name));
    const command = `t=$(cat /proc/sys/kernel/random/uuid); echo "$t" >> ${ledger}; sleep 1.5; echo "$t"`;
    // The last prompt's call waits for the chaos to be over: on a fast machine the sessions would otherwise end before
    // the last kills (it failed with 7 of 8 kills at a low load), and the chaos would hit nothing.
    const chaosDone = path.join(dir, 'chaos-done');
    const waiting = `while [ ! -e ${chaosDone} ]; do sleep 0.2; done; ${command}`;
    const turns = Array.from({ length: PROMPTS }, (_, k) => [
      { tool_calls: [{ name: 'Bash', input: { command: k === PROMPTS - 1 ? waiting : command } }] },
      { text: `done ${k}`, chunk_size: 2, delay_ms: 100 },
    ]).flat();
    const script = writeScript(dir, turns, 'script.json', 'history');
    const flags = ['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'];
    const workers: ClusterProcess[] = await Promise.all(
      [0, 1, 2].map(() => startWorker(redis.url, {}, ['--concurrency', '50'])),
    );
    const fronts = await Promise.all([0, 1].map(() => startFrontEnd(redis.url, flags)));
    const urls = () => fronts.filter((f) => f.child.exitCode === null && f.child.signalCode === null).map((f) => f.url);
    const everyone: ClusterProcess[] = [...workers, ...fronts];
    const chaos = { kills: 0, stop: false };
    try {
      const sessions = Array.from(
        { length: SESSIONS },
        (_, i) => new Session(() => (i % 2 ? urls().reverse() : urls())),
      );
      await Promise.all(sessions.map((s) => s.start()));

      // The chaos, while the sessions run (each takes about 12 s without it): a worker killed (and replaced) every
      // 2.5 s, KILLS times; Redis restarted from its append-only file, later SIGKILLed; the first front end killed.
      const schedule = (async () => {
        for (let tick = 1; !chaos.stop && tick <= KILLS; tick++) {
          await new Promise((resolve) => setTimeout(resolve, 2500));
          const victim = workers.splice(tick % workers.length, 1)[0]!;
          await kill9(victim);
          chaos.kills++;
          const fresh = await startWorker(redis.url, {}, ['--concurrency', '50']);
          workers.push(fresh);
          everyone.push(fresh);
          if (tick === 2) {
            await redis.stop();
            await redis.start();
          }
          if (tick === 3) await kill9(fronts[0]!);
          if (tick === 5) {
            await redis.kill9();
            await redis.start();
          }
        }
        writeFileSync(chaosDone, '');
      })();
      await Promise.all(sessions.map((s) => s.settle()));
      chaos.stop = true;
      await schedule;

      const log = new SessionLog({ redis: redis.url });
      const tokens = readFileSync(ledger, 'utf8').split('\n').filter(Boolean);
      const counted = new Map<string, number>();
      for (const token of tokens) counted.set(token, (counted.get(token) ?? 0) + 1);
      assert.deepEqual(
        [...counted].filter(([, n]) => n > 1),
        [],
        'no token twice in the ledger',
      );
      const recorded = new Set<string>();
      let unknown = 0;
      let lost = 0;
      try {
        for (const session of sessions) {
          const results = session.messages.filter((m) => m.type === 'result');
          assert.deepEqual(
            results.map((r) => [r.subtype, r.result]),
            Array.from({ length: PROMPTS }, (_, k) => ['success', `done ${k}`]),
            `one successful result per prompt: ${session.messages.map((m) => m.type).join(',')}`,
          );
          const ids = uuids(session.messages);
          assert.equal(new Set(ids).size, ids.length, 'no message twice');
          lost += session.messages.filter((m) => m.type === 'system' && m.subtype === 'worker_lost').length;

          const entries = (await log.read(sessionOf(session.messages))).map((e) => e.message);
          const logResults = entries.filter((m) => m.type === 'result').map((m) => (m as { uuid: string }).uuid);
          assert.deepEqual(
            logResults,
            results.map((r) => r.uuid),
            'the client got the log’s results',
          );
          const starts = new Map<string, number>();
          for (const m of entries)
            if (m.type === 'agentpipe_tool_start') starts.set(m.tool_use_id, (starts.get(m.tool_use_id) ?? 0) + 1);
          const outcomes = toolResults(entries);
          for (const [id, n] of starts) {
            assert.equal(n, 1, `call ${id} started once`);
            const outcome = outcomes.get(id) ?? [];
            assert.equal(outcome.length, 1, `call ${id} has one result`);
            if (UNKNOWN.test(outcome[0]!)) unknown++;
            else {
              assert.equal(
                counted.get(outcome[0]!),
                1,
                `call ${id}'s token is in the ledger once: ${JSON.stringify(outcome[0]).slice(0, 300)}`,
              );
              recorded.add(outcome[0]!);
            }
          }
          for (const id of outcomes.keys()) assert.ok(starts.has(id), `call ${id} has a result and started`);
        }
      } finally {
        await log.close();
      }
      const unrecorded = tokens.filter((token) => !recorded.has(token)).length;
      assert.ok(
        unrecorded <= unknown,
        `${unrecorded} ledger tokens of no recorded call, ${unknown} calls of unknown outcome`,
      );
      assert.equal(recorded.size + unrecorded, tokens.length);
      assert.equal(chaos.kills, KILLS);
      assert.ok(lost > 0, 'sessions were taken over');
      t.diagnostic(
        `${chaos.kills} workers killed, Redis restarted and killed once each, a front end killed; ${lost} takeovers, ` +
          `${tokens.length} ledger lines for ${recorded.size + unknown} calls, ${unknown} of unknown outcome`,
      );
    } finally {
      chaos.stop = true;
      for (const cli of everyone) await kill9(cli);
      await redis.stop();
    }
  },
);

/** The text of each main-agent tool_result, by tool_use_id. */
function toolResults(entries: LogMessage[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of entries) {
    if (m.type !== 'user' || m.parent_tool_use_id !== null || typeof m.message.content === 'string') continue;
    for (const block of m.message.content) {
      if (block.type !== 'tool_result') continue;
      const text =
        typeof block.content === 'string'
          ? block.content
          : block.content.map((b) => ('text' in b ? b.text : '')).join('');
      out.set(block.tool_use_id, [...(out.get(block.tool_use_id) ?? []), text.trim()]);
    }
  }
  return out;
}
