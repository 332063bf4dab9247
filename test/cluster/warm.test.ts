/**
 * Warm sessions (issue 15), with real workers and front ends on a private Redis: a new connection
 * takes the session the front end keeps ready, a warm session nobody took leaves nothing in Redis,
 * and a claim that races the warm run's end still gets its prompt run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, eventually, kill9, prompt, startFrontEnd, startWorker } from './cluster.ts';
import { ClusterClient } from '../../src/cluster/session-client.ts';
import { jobOptions } from '../../src/cluster/jobs.ts';

const redis = await startRedis();
const raw = new Redis(redis.url);
test.after(() => raw.disconnect());

/** The keys whose name holds `id` (the session's own and its BullMQ job's). */
async function keysOf(id: string): Promise<string[]> {
  return (await raw.keys('*')).filter((key) => key.includes(id)).sort();
}

test('serve --redis: a new connection takes the ready warm session; its replacement is queued', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'warm answer', chunk_size: 4 }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--include-partial-messages'],
  ]);
  try {
    const [, pooled] = await front.waitFor(/warm session (\S+) is ready/);
    const client = new Client(front.url);
    const header = await new Promise<string | undefined>((resolve, reject) => {
      client.ws.on('upgrade', (res) => resolve(res.headers['x-agentpipe-session-id']?.toString()));
      client.ws.on('error', reject);
    });
    assert.equal(header, pooled, 'the connection got the pooled session');
    await client.open();
    client.send(prompt('hello'));
    await client.until(() => client.results().length === 1, 'the result');
    const first = client.messages.find((m) => m.type === 'stream_event' && m.event.type === 'content_block_delta');
    assert.equal(first?.session_id, pooled, 'the first delta came from the pooled session');
    assert.ok(client.messages.every((m) => m.session_id === pooled));
    assert.equal(client.results()[0]!.result, 'warm answer');
    const closed = client.closed;
    client.send('{"type":"end_input"}\n');
    assert.deepEqual(await closed, { code: 1000, reason: 'session ended' });
    assert.match(front.stderr(), new RegExp(`session ${pooled} \\(a warm session\\)`));
    // The warm run was the session's only run: no job of the sessions queue ran it.
    assert.doesNotMatch(worker.stderr(), /input came in as its warm run ended/);

    // Its replacement: another warm session, taken by the next connection.
    const [, next] = await front.waitFor(new RegExp(`warm session (?!${pooled})(\\S+) is ready`));
    const second = new Client(front.url);
    await second.open();
    second.send(prompt('again'));
    await second.until(() => second.results().length === 1, 'the second result');
    assert.equal(second.results()[0]!.session_id, next);
    second.send('{"type":"end_input"}\n');
    await second.closed;
  } finally {
    await kill9(front);
    await kill9(worker);
  }
});

test('a warm session a connection took gives its warm slot to the next one (one warm slot, two sessions)', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'one' }, { text: 'two' }]);
  const worker = await startWorker(redis.url, { AGENTPIPE_WORKER_WARM: '1' });
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir]);
  try {
    const [, first] = await front.waitFor(/warm session (\S+) is ready/);
    const a = new Client(front.url);
    await a.open();
    a.send(prompt('first'));
    await a.until(() => a.results().length === 1, 'the first result');
    assert.equal(a.results()[0]!.session_id, first);
    // The first session still runs (its input is open) and the worker has one warm slot: the next is ready anyway.
    const [, second] = await front.waitFor(new RegExp(`warm session (?!${first})(\\S+) is ready`));
    const b = new Client(front.url);
    await b.open();
    b.send(prompt('second'));
    await b.until(() => b.results().length === 1, 'the second result');
    assert.equal(b.results()[0]!.session_id, second);
    for (const c of [a, b]) {
      const closed = c.closed;
      c.send('{"type":"end_input"}\n');
      assert.equal((await closed).code, 1000);
    }
  } finally {
    await kill9(front);
    await kill9(worker);
  }
});

test('a warm session no connection took ends after its warmMs and leaves no key in Redis', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'unused' }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir], {
    AGENTPIPE_WARM_MS: '1500',
  });
  try {
    const [, pooled] = await front.waitFor(/warm session (\S+) is ready/);
    assert.ok((await keysOf(pooled!)).length > 0, 'a warm session has keys while it waits');
    await worker.waitFor(new RegExp(`session ${pooled}: unclaimed`), 10_000);
    await eventually(async () => (await keysOf(pooled!)).length === 0, `no key of ${pooled}`);
    assert.deepEqual(await keysOf(pooled!), []);
    // The pool replaced it (well before it ended).
    await front.waitFor(new RegExp(`warm session (?!${pooled})\\S+ is ready`));
  } finally {
    await kill9(front);
    await kill9(worker);
  }
});

test('a warm session taken just as its warm time ran out still runs the prompt (each way the race goes)', async (t) => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'late but answered' }]);
  // Enough warm slots for every attempt (each claimed one keeps its slot until its input ends).
  const worker = await startWorker(redis.url, { AGENTPIPE_WORKER_WARM: '4' });
  const client = await ClusterClient.open({ redis: redis.url });
  const WARM_MS = 300;
  const OFFSETS = [-60, -40, -30, -24, -18, -14, -10, -7, -4, -2, 0, 3, 8, 20];
  const outcomes = { claimed: 0, startedAnew: 0 };
  try {
    // Claims aimed around the moment the worker ends the warm run (it starts counting just before it says it is
    // ready): before it, between its end and the discard (the worker hands the session over), and after the discard
    // (the client starts it as a new session).
    for (const offset of OFFSETS) {
      const sessionId = randomUUID();
      const job = { sessionId, options: jobOptions({ model: 'scripted', script, cwd: dir }), stream: {} };
      await client.addWarm({ ...job, warmMs: WARM_MS });
      assert.ok(await client.sessions.waitReady(sessionId, 10_000), 'the warm session got ready');
      const readyAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, readyAt + WARM_MS + offset - performance.now())));
      const took = client.takeWarm(job);
      await client.push(sessionId, [prompt(`offset ${offset}`).trim(), '{"type":"end_input"}']);
      if (await took) outcomes.claimed++;
      else outcomes.startedAnew++;
      const stop = AbortSignal.timeout(15_000);
      let result: Record<string, unknown> | undefined;
      for await (const { entry } of client.sessions.follow(sessionId, '0-0', stop))
        if (entry.message.type === 'result') {
          result = entry.message as unknown as Record<string, unknown>;
          break;
        }
      assert.equal(result?.result, 'late but answered', `the prompt claimed at offset ${offset} ms ran`);
    }
    // Each claim found the session running, handed over or gone; every one was answered.
    const handedOver = worker.stderr().match(/input came in as its warm run ended/g)?.length ?? 0;
    t.diagnostic(`claims: ${JSON.stringify(outcomes)}, handed over by the worker: ${handedOver}`);
    assert.equal(outcomes.claimed + outcomes.startedAnew, OFFSETS.length);
  } finally {
    await client.close();
    await kill9(worker);
  }
});
