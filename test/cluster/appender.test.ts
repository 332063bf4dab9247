/**
 * The Appender on a private redis-server: bursts of pushes (gathered and pipelined) land in the
 * order pushed, durable messages in the log and deltas in the live stream, even when one append
 * of the pipeline fails and later ones do not (the append script's order check); `drain` waits
 * for all of them; an owner that lost its lease gets a FencedError once and nothing after it lands.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Appender } from '../../src/cluster/run/appender.ts';
import { FencedError, SessionLog, type LogMessage } from '../../src/cluster/redis.ts';
import { AppendOrderError, type AppendOrder, type AppendRecord } from '../../src/cluster/log/index.ts';
import { RedisConnectionError } from '../../src/cluster/connection.ts';
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

test("the append script keeps a writer's batches in order: a gap is refused, a repeat is answered as landed", async () => {
  const sessionId = randomUUID();
  const token = randomUUID();
  assert.equal(await log.acquire(sessionId, token, 60_000), true);
  const writer = randomUUID();
  const batch = (text: string): AppendRecord[] => log.encode([user(sessionId, text), delta(sessionId, `${text}…`)]);
  const refused = (seq: number, reason: 'gap' | 'landed') => (error: unknown) =>
    AppendOrderError.isInstance(error) && error.reason === reason && error.message.includes(`batch ${seq}`);
  await assert.rejects(
    log.appendRecords(sessionId, token, batch('two'), 60_000, { writer, seq: 2 }),
    refused(2, 'gap'),
  );
  await log.appendRecords(sessionId, token, batch('one'), 60_000, { writer, seq: 1 });
  await assert.rejects(
    log.appendRecords(sessionId, token, batch('one'), 60_000, { writer, seq: 1 }),
    refused(1, 'landed'),
  );
  await log.appendRecords(sessionId, token, batch('two'), 60_000, { writer, seq: 2 });
  // A new writer (the next run's appender) starts at 1; appends without an order are not checked.
  await log.appendRecords(sessionId, token, batch('three'), 60_000, { writer: randomUUID(), seq: 1 });
  await log.appendRecords(sessionId, token, batch('four'));
  assert.deepEqual(
    (await log.read(sessionId)).map((e) => textOf(e.message)),
    ['one', 'two', 'three', 'four'],
  );
  assert.deepEqual(
    (await log.readLive(sessionId)).map((e) => textOf(e.message)),
    ['one…', 'two…', 'three…', 'four…'],
  );
});

test('an append that fails while later ones are sent: the later ones wait for it, the order holds', async () => {
  const sessionId = randomUUID();
  const token = randomUUID();
  assert.equal(await log.acquire(sessionId, token, 60_000), true);
  // The second batch's first attempt fails as a lost connection would, without reaching Redis; the ones sent after it
  // reach Redis at once (as a pipelined append after a forgotten script or a given-up attempt does).
  const attempts: number[] = [];
  const flaky = Object.create(log) as SessionLog;
  flaky.appendRecords = (id, owner, records, leaseMs, order?: AppendOrder) => {
    if (order) attempts.push(order.seq);
    if (order?.seq === 2 && attempts.filter((s) => s === 2).length === 1)
      return Promise.reject(new RedisConnectionError('connection lost (test)'));
    return log.appendRecords(id, owner, records, leaseMs, order);
  };
  const failures: Error[] = [];
  const appender = new Appender({ log: flaky, sessionId, token, leaseMs: 60_000 }, (e: Error) => failures.push(e));
  const texts = Array.from({ length: 6 }, (_, i) => `m${i}`);
  for (const text of texts) await appender.push(log.encode([user(sessionId, text)]));
  await appender.drain();
  assert.deepEqual(failures, []);
  assert.deepEqual(
    (await log.read(sessionId)).map((e) => textOf(e.message)),
    texts,
  );
  // Batch 2 was tried twice; at least batch 3 was refused once for the gap and sent again after it.
  assert.equal(attempts.filter((s) => s === 2).length, 2);
  assert.ok(attempts.filter((s) => s === 3).length >= 2, `attempts: ${attempts.join(' ')}`);
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
