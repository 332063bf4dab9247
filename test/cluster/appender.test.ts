/**
 * The Appender on a private redis-server: bursts of pushes (gathered and pipelined) land in the
 * order pushed, durable messages in the log and deltas in the live stream; `drain` waits for all
 * of them; an owner that lost its lease gets a FencedError once and nothing after it lands.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Appender } from '../../src/cluster/run/appender.ts';
import { FencedError, SessionLog, type LogMessage } from '../../src/cluster/redis.ts';
import { startRedis } from './redis-server.ts';
import { delta, textOf, user } from './messages.ts';

const server = await startRedis();
const log = new SessionLog({ redis: server.url, autoPipelining: false, liveMaxLen: 10_000 });
after(() => log.close());

test('bursts of pushes land in order (log and live stream), drain waits for them', async () => {
  const sessionId = randomUUID();
  const token = randomUUID();
  assert.equal(await log.acquire(sessionId, token, 60_000), true);
  const failures: Error[] = [];
  const appender = new Appender({ log, sessionId, token, leaseMs: 60_000 }, (e: Error) => failures.push(e));
  const sent: LogMessage[] = [];
  for (let burst = 0; burst < 20; burst++) {
    // One burst: many pushes in the same tick (as a model's stream produces them), then a yield.
    for (let i = 0; i < 50; i++) {
      const message = i % 5 === 0 ? user(sessionId, `u${burst}.${i}`) : delta(sessionId, `d${burst}.${i}`);
      sent.push(message);
      await appender.push(log.encode([message]));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await appender.drain();
  assert.deepEqual(failures, []);
  const durable = (await log.read(sessionId)).map((e) => textOf(e.message));
  const live = (await log.readLive(sessionId)).map((e) => textOf(e.message));
  assert.deepEqual(durable, sent.filter((m) => m.type === 'user').map(textOf));
  assert.deepEqual(live, sent.filter((m) => m.type !== 'user').map(textOf));
});

test('a lost lease: one FencedError, nothing appended after it', async () => {
  const sessionId = randomUUID();
  const token = randomUUID();
  assert.equal(await log.acquire(sessionId, token, 60_000), true);
  const failures: Error[] = [];
  const appender = new Appender({ log, sessionId, token, leaseMs: 60_000 }, (e: Error) => failures.push(e));
  await appender.push(log.encode([user(sessionId, 'before')]));
  await appender.drain();
  await log.release(sessionId, token);
  assert.equal(await log.acquire(sessionId, 'another owner', 60_000), true);
  for (let i = 0; i < 30; i++) await appender.push(log.encode([user(sessionId, `after ${i}`)]));
  await appender.drain();
  assert.equal(failures.length, 1);
  assert.ok(failures[0] instanceof FencedError);
  assert.ok(appender.failed instanceof FencedError);
  await appender.push(log.encode([user(sessionId, 'later')]));
  await appender.drain();
  assert.deepEqual(
    (await log.read(sessionId)).map((e) => textOf(e.message)),
    ['before'],
  );
});
