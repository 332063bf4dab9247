/**
 * SessionLog on a private redis-server: order and ids, replay from an id, live tailing, fencing
 * of an owner whose lease expired, concurrent appenders, ephemeral deltas kept out of the
 * durable log, and archiving to a transcript agentpipe reads back.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import {
  ArchiveRefusedError,
  FencedError,
  SessionLog,
  type LogEntry,
  type LogMessage,
} from '../../src/cluster/redis.ts';
import { readTranscript } from '../../src/session/transcript-format.ts';
import { startRedis } from './redis-server.ts';
import { assistant, delta, init, prompt, result, textOf, user } from './messages.ts';

const server = await startRedis();
const log = new SessionLog({ redis: server.url, liveMaxLen: 50 });
const raw = new Redis(server.url, { lazyConnect: true });
after(async () => {
  await log.close();
  raw.disconnect();
});

/** A fresh session that `owner` holds for a minute. */
async function session(owner = randomUUID()): Promise<{ id: string; owner: string }> {
  const id = randomUUID();
  assert.equal(await log.acquire(id, owner, 60_000), true);
  return { id, owner };
}

/** Polls `check` every 10 ms until it is true (or fails after `ms`). */
async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, 'condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const texts = (entries: LogEntry[]): string[] => entries.map((e) => textOf(e.message));
const compareIds = (a: string, b: string): number => {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
};

test('append then read: every message in order, with the stream ids append returned', async () => {
  const s = await session();
  const first = await log.append(s.id, s.owner, [user(s.id, 'm0'), assistant(s.id, 'm1'), user(s.id, 'm2')]);
  const second = await log.append(s.id, s.owner, [assistant(s.id, 'm3'), result(s.id, 'm4')]);
  const entries = await log.read(s.id);
  assert.deepEqual(texts(entries), ['m0', 'm1', 'm2', 'm3', 'm4']);
  assert.deepEqual(
    entries.map((e) => e.id),
    [...first, ...second],
  );
  for (let i = 1; i < entries.length; i++)
    assert.ok(compareIds(entries[i - 1]!.id, entries[i]!.id) < 0, 'ids increase');
  assert.equal(await log.lastId(s.id), second.at(-1));
  assert.deepEqual(await log.read(randomUUID()), [], 'an unknown session has an empty log');
});

test('replay from an id gives exactly the later messages, once; a retried append lands once', async () => {
  const s = await session();
  const messages = Array.from({ length: 6 }, (_, i) => user(s.id, `r${i}`));
  const ids = await log.append(s.id, s.owner, messages);
  assert.deepEqual(texts(await log.read(s.id, ids[2])), ['r3', 'r4', 'r5']);
  assert.deepEqual(await log.read(s.id, ids[5]), []);
  assert.deepEqual(texts(await log.read(s.id, '0-0')), ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
  // The same batch again (a reply lost to a dropped connection, resent): same ids, nothing new.
  assert.deepEqual(await log.append(s.id, s.owner, messages.slice(4)), ids.slice(4));
  assert.equal((await log.read(s.id)).length, 6);
  await assert.rejects(log.read(s.id, 'nope'), /not a stream id/);
});

test('tail yields what was there after the id, then live appends, and ends on abort', async () => {
  const s = await session();
  const [firstId] = await log.append(s.id, s.owner, [user(s.id, 't0'), user(s.id, 't1')]);
  const controller = new AbortController();
  const seen: string[] = [];
  const done = (async () => {
    for await (const entry of log.tail(s.id, firstId!, controller.signal)) seen.push(textOf(entry.message));
  })();
  await until(async () => seen.length === 1);
  for (let i = 2; i < 5; i++) await log.append(s.id, s.owner, [user(s.id, `t${i}`), delta(s.id, 'ignored')]);
  await until(async () => seen.length === 4);
  assert.deepEqual(seen, ['t1', 't2', 't3', 't4'], 'durable messages only, in order, none twice');
  const started = Date.now();
  controller.abort();
  await done;
  assert.ok(Date.now() - started < 1000, `the tail ended ${Date.now() - started} ms after the abort`);

  // From '$': only what is appended from now on.
  const live = new AbortController();
  const later: string[] = [];
  const iterator = log.tail(s.id, '$', live.signal);
  const next = iterator.next();
  await new Promise((r) => setTimeout(r, 50));
  await log.append(s.id, s.owner, [user(s.id, 't5')]);
  const { value } = await next;
  later.push(textOf((value as LogEntry).message));
  live.abort();
  assert.deepEqual(later, ['t5']);
  assert.equal((await iterator.next()).done, true);
});

test("fencing: after A's lease expires and B takes over, A can no longer append, renew or release", async () => {
  const id = randomUUID();
  const [a, b] = [`A-${randomUUID()}`, `B-${randomUUID()}`];
  assert.equal(await log.acquire(id, a, 200), true);
  assert.equal(await log.acquire(id, b, 60_000), false, 'B waits while A holds the lease');
  await log.append(id, a, [user(id, 'A0')]);
  // A keeps appending as fast as it can, unaware its lease is running out.
  let stop = false;
  const rejected: FencedError[] = [];
  const writer = (async () => {
    for (let i = 1; !stop; i++) {
      try {
        await log.append(id, a, [user(id, `A${i}`)]);
      } catch (error) {
        assert.ok(error instanceof FencedError, String(error));
        rejected.push(error);
      }
    }
  })();
  await until(() => log.acquire(id, b, 60_000), 2000);
  const [marker] = await log.append(id, b, [user(id, 'B-took-over')]);
  await new Promise((r) => setTimeout(r, 50));
  stop = true;
  await writer;
  assert.ok(
    rejected.length > 0 && rejected.every((e) => e.reason === 'taken' || e.reason === 'expired'),
    'A was fenced',
  );
  const takenOver = (e: unknown): boolean =>
    e instanceof FencedError && e.reason === 'taken' && /another worker/.test(e.message);
  await assert.rejects(log.append(id, a, [user(id, 'A-late')]), takenOver);
  await assert.rejects(log.renew(id, a, 1000), FencedError);
  assert.equal(await log.release(id, a), false);
  assert.equal((await log.owner(id))?.token, b, "A's release did not free B's lease");
  const entries = await log.read(id);
  const after = entries.filter((e) => compareIds(e.id, marker!) > 0);
  assert.deepEqual(after, [], 'nothing of A landed after B took over');
  assert.ok(texts(entries).filter((t) => t.startsWith('A')).length >= 1);
  // B renews and releases; an expired lease nobody took gives reason `expired`.
  await log.renew(id, b, 100);
  assert.equal(await log.release(id, b), true);
  await assert.rejects(
    log.append(id, b, [user(id, 'B-late')]),
    (e: unknown) => e instanceof FencedError && e.reason === 'expired',
  );
});

test("20 concurrent appenders: every message exactly once, each appender's in its order", async (t) => {
  const s = await session();
  const logs = Array.from({ length: 20 }, () => new SessionLog({ redis: server.url }));
  after(() => Promise.all(logs.map((l) => l.close())));
  await Promise.all(logs.map((l) => l.connect()));
  const started = performance.now();
  await Promise.all(
    logs.map(async (client, c) => {
      for (let batch = 0; batch < 10; batch++) {
        await client.append(
          s.id,
          s.owner,
          Array.from({ length: 5 }, (_, i) => user(s.id, `c${c}-${batch * 5 + i}`)),
        );
      }
    }),
  );
  const ms = performance.now() - started;
  const entries = await log.read(s.id);
  assert.equal(entries.length, 1000);
  assert.equal(new Set(entries.map((e) => (e.message as { uuid: string }).uuid)).size, 1000);
  assert.equal(new Set(texts(entries)).size, 1000);
  for (let c = 0; c < 20; c++) {
    const mine = texts(entries)
      .filter((t) => t.startsWith(`c${c}-`))
      .map((t) => Number(t.split('-')[1]));
    assert.deepEqual(
      mine,
      Array.from({ length: 50 }, (_, i) => i),
    );
  }
  t.diagnostic(
    `20 appenders: 1000 messages in 200 fenced batches in ${ms.toFixed(0)} ms = ` +
      `${Math.round(1000 / (ms / 1000))} messages/s`,
  );
});

test('ephemeral deltas stay out of the durable log; the live stream is capped and expires', async () => {
  const s = await session();
  const [, answerId] = await log.append(s.id, s.owner, [
    user(s.id, 'q'),
    delta(s.id, 'par'),
    delta(s.id, 'tial'),
    assistant(s.id, 'partial'),
  ]);
  const durable = await log.read(s.id);
  assert.deepEqual(
    durable.map((e) => e.message.type),
    ['user', 'assistant'],
  );
  const live = await log.readLive(s.id);
  assert.deepEqual(
    live.map((e) => textOf(e.message)),
    ['par', 'tial'],
  );
  assert.deepEqual(
    live.map((e) => e.after),
    [durable[0]!.id, durable[0]!.id],
    'each delta names the durable message it follows',
  );
  // (Ids of the two streams may be equal: each has its own sequence within a millisecond.)
  assert.equal(answerId, live[0]!.id, "a delta's id is its live-stream id");
  for (let i = 0; i < 10; i++)
    await log.append(
      s.id,
      s.owner,
      Array.from({ length: 100 }, (_, j) => delta(s.id, `d${i * 100 + j}`)),
    );
  await raw.connect().catch(() => undefined);
  const { live: liveKey, log: logKey } = log.keys(s.id);
  const length = await raw.xlen(liveKey);
  assert.ok(length >= 50 && length <= 150, `the live stream is capped near 50 (MAXLEN ~ trims whole nodes): ${length}`);
  assert.equal(await raw.xlen(logKey), 2, 'no delta reached the durable log');
  assert.ok((await raw.pttl(liveKey)) > 0, 'the live stream expires when idle');
  const tail = await log.readLive(s.id);
  assert.equal(textOf(tail.at(-1)!.message), 'd999');
});

test('archive writes a transcript agentpipe reads back, then the keys are gone (and the owner fenced)', async () => {
  const s = await session();
  const messages: LogMessage[] = [
    init(s.id),
    prompt(s.id, 'hello'),
    delta(s.id, 'hi'),
    assistant(s.id, 'hi there'),
    result(s.id, 'hi there'),
  ];
  await log.append(s.id, s.owner, messages);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentpipe-archive-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'nested', `${s.id}.jsonl`);
  await assert.rejects(
    log.archive(s.id, file, 'not the owner'),
    ArchiveRefusedError,
    'refused while another owner holds the lease',
  );
  const [waiting] = await log.pushInput(s.id, ['{"type":"user"}']);
  await assert.rejects(log.archive(s.id, file, s.owner), /input is waiting in its inbox/);
  await log.setCursor(s.id, s.owner, waiting!);
  assert.equal(await log.archive(s.id, file, s.owner), 4);
  const warnings: string[] = [];
  const lines = await readTranscript(file, (l) => warnings.push(l));
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    lines.map((l) => l.type),
    ['system', 'user', 'assistant', 'result'],
  );
  assert.deepEqual(
    lines.map((l) => l.uuid),
    [0, 1, 3, 4].map((i) => (messages[i] as { uuid: string }).uuid),
  );
  assert.ok(
    lines.every((l) => typeof l.timestamp === 'string'),
    'every line has a timestamp',
  );
  await raw.connect().catch(() => undefined);
  assert.equal(await raw.exists(...Object.values(log.keys(s.id))), 0, 'every key of the session is gone');
  await assert.rejects(log.append(s.id, s.owner, [user(s.id, 'late')]), FencedError);
  assert.deepEqual(readdirSync(path.dirname(file)), [path.basename(file)], 'no temp file left');
});

test('setCursor trims the inbox before the entry still needed and keeps the state requests, fenced', async () => {
  const s = await session();
  const ids = await log.pushInput(s.id, ['a', 'b', 'c', 'd']);
  await log.setCursor(s.id, s.owner, ids[2]!, {
    keepFrom: ids[1]!,
    state: { field: 'set_model', line: '{"type":"control_request"}' },
  });
  assert.deepEqual(
    (await log.readInput(s.id)).map((e) => e.line),
    ['b', 'c', 'd'],
  );
  assert.equal(await log.cursor(s.id), ids[2]);
  assert.deepEqual([...(await log.stateRequests(s.id))], [['set_model', '{"type":"control_request"}']]);
  assert.equal(await log.hasPendingInput(s.id), true);
  await log.setCursor(s.id, s.owner, ids[3]!, { keepFrom: ids[3]! });
  assert.equal(await log.inputLength(s.id), 1);
  assert.equal(await log.hasPendingInput(s.id), false);
  await assert.rejects(log.setCursor(s.id, 'someone else', ids[3]!, { keepFrom: ids[3]! }), FencedError);
});

test('delete removes the session; bad session ids are refused', async () => {
  const s = await session();
  await log.append(s.id, s.owner, [user(s.id, 'x'), delta(s.id, 'y')]);
  await log.delete(s.id);
  assert.deepEqual(await log.read(s.id), []);
  assert.equal(await log.owner(s.id), null);
  assert.throws(() => log.keys('a}b'), /not a usable session id/);
  assert.throws(() => log.keys(''), /not a usable session id/);
});
