/**
 * Bad configuration and a restarted Redis: a wrong or missing password and an unreachable port
 * give a clear RedisConnectionError within a bound (never a hang); a Redis stopped under a client
 * gives a clear error for the commands meanwhile; restarted on its AOF, the log is all there and
 * the same clients (and a running tail) carry on.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { RedisConnectionError, SessionLog, redisSessionStore, type LogEntry } from '../../src/cluster/redis.ts';
import { freePort, startRedis } from './redis-server.ts';
import { textOf, user } from './messages.ts';

const BOUND_MS = 5000;

/** Runs `run`, expecting a RedisConnectionError matching `pattern` within BOUND_MS. */
async function failsClearly(run: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  const started = Date.now();
  await assert.rejects(run(), (error: unknown) => {
    assert.ok(error instanceof RedisConnectionError, `a RedisConnectionError, not ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });
  const ms = Date.now() - started;
  assert.ok(ms < BOUND_MS, `failed after ${ms} ms`);
}

test('wrong password, no password, unreachable port: a clear error within 5 s', async () => {
  const server = await startRedis({ password: 's3cret' });
  const wrong = new SessionLog({ redis: `redis://:nope@127.0.0.1:${server.port}` });
  await failsClearly(
    () => wrong.connect(),
    /cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+: authentication failed: wrong password/,
  );
  const none = new SessionLog({ redis: `redis://127.0.0.1:${server.port}` });
  await failsClearly(() => none.read(randomUUID()), /authentication required/);
  const store = redisSessionStore({ redis: `redis://:nope@127.0.0.1:${server.port}` });
  await failsClearly(() => store.load({ projectKey: 'p', sessionId: 's' }), /wrong password/);
  const port = await freePort();
  const unreachable = new SessionLog({ redis: `redis://127.0.0.1:${port}` });
  await failsClearly(
    () => unreachable.acquire(randomUUID(), 'me', 1000),
    /connection refused: is redis-server running there\?/,
  );
  // The password never shows in a message.
  await assert.rejects(wrong.connect(), (e: Error) => !e.message.includes('nope'));
  const right = new SessionLog({ redis: server.url });
  await right.connect();
  await Promise.all([wrong.close(), none.close(), store.close(), unreachable.close(), right.close()]);
});

test('Redis restarted: commands meanwhile fail clearly; after the restart the log survives (AOF) and clients carry on', async () => {
  const server = await startRedis();
  const log = new SessionLog({ redis: server.url, tailGiveUpMs: 20_000 });
  after(() => log.close());
  const id = randomUUID();
  const owner = randomUUID();
  assert.equal(await log.acquire(id, owner, 60_000), true);
  const before = await log.append(id, owner, [user(id, 'one'), user(id, 'two')]);

  const controller = new AbortController();
  const tailed: LogEntry[] = [];
  const tail = (async () => {
    for await (const entry of log.tail(id, '0-0', controller.signal)) tailed.push(entry);
  })();
  await until(() => tailed.length === 2);

  await server.stop();
  await failsClearly(() => log.read(id), /Redis at redis:\/\/127\.0\.0\.1:\d+ is unavailable: connection refused/);
  await server.start();

  const started = Date.now();
  const entries = await log.read(id);
  assert.deepEqual(
    entries.map((e) => e.id),
    before,
    'the log survived the restart',
  );
  assert.equal((await log.owner(id))?.token, owner, 'so did the lease');
  await log.append(id, owner, [user(id, 'three')]);
  await until(() => tailed.length === 3);
  assert.ok(Date.now() - started < BOUND_MS, 'the clients reconnected quickly');
  assert.deepEqual(
    tailed.map((e) => textOf(e.message)),
    ['one', 'two', 'three'],
    'the tail went on: nothing lost, nothing twice',
  );
  controller.abort();
  await tail;
});

/** Polls `check` every 10 ms until it is true (fails after 5 s). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!check()) {
    assert.ok(Date.now() < deadline, 'condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
