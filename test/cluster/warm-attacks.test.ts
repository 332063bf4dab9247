/**
 * Warm sessions (issue 15) under attack and failure, with real workers and front ends on a private Redis: a client
 * naming a pooled session, refused upgrades, bad jobs on the warm queue, a worker killed holding a ready session,
 * Redis restarted while the pool refills. A passing row is a defence that holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, eventually, kill9, prompt, startFrontEnd, startWorker, type ClusterProcess } from './cluster.ts';
import { ClusterClient } from '../../src/cluster/session-client.ts';
import { jobOptions } from '../../src/cluster/jobs.ts';

const redis = await startRedis();
const raw = new Redis(redis.url);
test.after(() => raw.disconnect());

/** The Redis key of a session's ready mark and inbox (the default `ap` prefix). */
const readyKey = (id: string): string => `ap:{${id}}:ready`;
const inboxKey = (id: string): string => `ap:{${id}}:inbox`;

/** The session id the upgrade response names (X-Agentpipe-Session-Id). */
function upgradeSession(client: Client): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    client.ws.once('upgrade', (res) => resolve(res.headers['x-agentpipe-session-id']?.toString()));
    client.ws.once('error', reject);
  });
}

/** The HTTP status of a refused WebSocket upgrade (fails if the upgrade succeeds). */
function refusedStatus(url: string, options: WebSocket.ClientOptions = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error(`the upgrade to ${url} was accepted`));
    });
    ws.once('error', () => undefined);
  });
}

/** Ends a client's session and waits for its close. */
async function endSession(client: Client): Promise<void> {
  if (client.ws.readyState !== WebSocket.OPEN) return;
  const closed = client.closed;
  client.send('{"type":"end_input"}\n');
  await closed;
}

/** A front end and one worker on the test's Redis, with a two-turn script; both killed after `body`. */
async function withCluster(
  body: (c: { front: ClusterProcess & { url: string }; worker: ClusterProcess; pooled: string }) => Promise<void>,
  frontEnv: Record<string, string> = {},
  access?: string[],
): Promise<void> {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'first answer' }, { text: 'second answer' }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(
    redis.url,
    ['--model', 'scripted', '--script', script, '--cwd', dir],
    frontEnv,
    access,
  );
  try {
    const [, pooled] = await front.waitFor(/warm session (\S+) is ready/);
    await body({ front, worker, pooled: pooled! });
  } finally {
    await kill9(front);
    await kill9(worker);
  }
}

// 1. Cross-client leakage through a pooled session's id (ids are UUIDs; an attacker who read one in the front end's
// log): the pooled session must not then be handed to a new connection, which would share it with the attacker.
test('a reconnect naming a pooled warm session, then a prompt: the next new connection does not share the session', async () => {
  await withCluster(async ({ front, pooled }) => {
    const attacker = new Client(`${front.url}?session=${pooled}`);
    try {
      await attacker.open();
      attacker.send(prompt('attacker prompt'));
      // Refused, or answered: either way the pooled session must not reach the next client afterwards.
      await attacker.until(
        () => attacker.results().length === 1 || attacker.ws.readyState !== WebSocket.OPEN,
        'the attacker answered or refused',
      );
      const victim = new Client(front.url);
      const assigned = await upgradeSession(victim);
      await victim.open();
      victim.send(prompt('victim prompt'));
      await victim.until(() => victim.results().length > 0, 'the victim result');
      await endSession(victim);
      // Refusing the attacker is a defence too (the pooled session then goes to the victim, unused).
      if (attacker.results().length > 0)
        assert.notEqual(assigned, pooled, 'the new connection got the session the attacker used');
      assert.deepEqual(
        victim.results().map((r) => r.result),
        ['first answer'],
        'the new connection was sent another client’s results, or continued its conversation',
      );
      assert.ok(attacker.results().length <= 1, 'the attacker was sent the new connection’s result');
    } finally {
      attacker.ws.terminate();
    }
  });
});

test('a reconnect naming a pooled warm session and only listening: it is not sent the next new connection’s messages', async () => {
  await withCluster(async ({ front, pooled }) => {
    const spy = new Client(`${front.url}?session=${pooled}`);
    try {
      await spy.open().catch(() => undefined);
      // The spy's connection is set up (or refused) before the victim comes.
      await front.waitFor(new RegExp(`session ${pooled} \\(reconnected|session=.* is not|connection 1: `));
      const victim = new Client(front.url);
      await victim.open();
      victim.send(prompt('victim secret'));
      await victim.until(() => victim.results().length === 1, 'the victim result');
      await endSession(victim);
      assert.deepEqual(
        spy.messages.map((m) => m.type),
        [],
        'the connection naming the pooled session was sent the new connection’s messages',
      );
    } finally {
      spy.ws.terminate();
    }
  });
});

// 2. A refused upgrade (no or a wrong token, another site's Origin, a foreign Host) must not take the pooled session.
test('refused upgrades (no token, wrong token, other Origin, other Host) leave the warm pool untouched', async () => {
  const token = 'warm-attack-token-0123456789';
  await withCluster(
    async ({ front, pooled }) => {
      const port = new URL(front.url).port;
      assert.equal(await refusedStatus(front.url), 401, 'no token');
      assert.equal(await refusedStatus(`${front.url}?token=wrong`), 401, 'a wrong token');
      assert.equal(await refusedStatus(front.url, { headers: { authorization: 'Bearer ' + 'x'.repeat(28) } }), 401);
      const good = { headers: { authorization: `Bearer ${token}` } };
      assert.equal(await refusedStatus(front.url, { ...good, origin: 'http://evil.example' }), 403, 'another origin');
      assert.equal(
        await refusedStatus(front.url, { headers: { ...good.headers, host: `evil.example:${port}` } }),
        421,
        'a rebinding Host',
      );
      // Nothing was claimed: the ready mark is there, the inbox empty, no connection was served.
      assert.equal(await raw.exists(readyKey(pooled)), 1, 'the ready mark is still there');
      assert.equal(await raw.exists(inboxKey(pooled)), 0, 'nothing was added to the pooled session’s inbox');
      assert.doesNotMatch(front.stderr(), /connection \d+ from/);
      assert.doesNotMatch(front.stderr(), /\(a warm session\)/);
      // The client with the token gets the pooled session.
      const client = new Client(`${front.url}?token=${token}`);
      const assigned = await upgradeSession(client);
      await client.open();
      assert.equal(assigned, pooled, 'the first accepted connection got the pooled session');
      client.send(prompt('hello'));
      await client.until(() => client.results().length === 1, 'the result');
      await endSession(client);
    },
    {},
    ['--token', token],
  );
});

/** Sends a raw upgrade request; resolves with its response status (101 would be a WebSocket). */
function rawUpgrade(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url.replace(/^ws/, 'http'), {
      headers: { connection: 'Upgrade', upgrade: 'websocket', ...headers },
    });
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

test('an authorized upgrade the WebSocket handshake refuses (no key, bad version) does not take the pooled session', async () => {
  await withCluster(async ({ front, pooled }) => {
    assert.equal(await rawUpgrade(front.url, { 'sec-websocket-version': '13' }), 400, 'no Sec-WebSocket-Key');
    const key = Buffer.from(randomUUID().slice(0, 16)).toString('base64');
    const status = await rawUpgrade(front.url, { 'sec-websocket-key': key, 'sec-websocket-version': '99' });
    assert.ok(status === 400 || status === 426, `a bad version is refused (${status})`);
    assert.equal(await raw.exists(readyKey(pooled)), 1, 'the ready mark is still there');
    assert.equal(await raw.exists(inboxKey(pooled)), 0, 'nothing was added to the pooled session’s inbox');
  });
});

// 3. Bad data on the warm queue (anyone with Redis access can add it): refused with one clear line, no crash, no
// retry loop; a warm job with a huge warmMs holds a warm slot, never a slot of the sessions queue.
test('bad warm-queue jobs are refused with a clear line; a huge warmMs leaves the sessions queue free', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'normal answer' }]);
  const worker = await startWorker(redis.url, { AGENTPIPE_WORKER_WARM: '1' });
  const url = new URL(redis.url);
  const warmQueue = new Queue('warm', {
    connection: { host: url.hostname, port: Number(url.port) },
    prefix: 'agentpipe',
  });
  const client = await ClusterClient.open({ redis: redis.url });
  const options = jobOptions({ model: 'scripted', script, cwd: dir });
  try {
    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['negative', { sessionId: randomUUID(), options, stream: {}, warmMs: -5 }, /warmMs should be a positive number/],
      ['nan', { sessionId: randomUUID(), options, stream: {}, warmMs: Number.NaN }, /warmMs should be a positive/],
      ['zero', { sessionId: randomUUID(), options, stream: {}, warmMs: 0 }, /warmMs should be a positive number/],
      ['string', { sessionId: randomUUID(), options, stream: {}, warmMs: '60000' }, /warmMs should be a positive/],
      ['past-timer', { sessionId: randomUUID(), options, stream: {}, warmMs: 2 ** 31 }, /up to 2147483647, not/],
      ['not-uuid', { sessionId: '../../etc/passwd', options, stream: {}, warmMs: 1000 }, /sessionId is not a UUID/],
      ['no-options', { sessionId: randomUUID(), stream: {}, warmMs: 1000 }, /options is not an object/],
      [
        'unknown-option',
        { sessionId: randomUUID(), options: { ...options, env: { X: '1' } }, stream: {}, warmMs: 1000 },
        /option env is not one a worker accepts/,
      ],
      [
        'bad-stream',
        { sessionId: randomUUID(), options, stream: { permissionPromptTool: 'mcp__x' }, warmMs: 1000 },
        /permissionPromptTool must be "stdio"/,
      ],
    ];
    for (const [name, data] of bad) await warmQueue.add('session', data, { jobId: `bad-${name}` });
    for (const [name, , why] of bad) {
      const [line] = await worker.waitFor(new RegExp(`job bad-${name} refused: .*`));
      assert.match(line, why, `job bad-${name}: ${line}`);
    }
    // Each failed once: not retried, not left active.
    await eventually(async () => {
      const states = await Promise.all(bad.map(([name]) => warmQueue.getJobState(`bad-${name}`)));
      return states.every((s) => s === 'failed');
    }, 'every bad job failed');
    for (const [name] of bad)
      assert.equal(worker.stderr().match(new RegExp(`job bad-${name} refused`, 'g'))?.length, 1, `bad-${name} once`);

    // A warm job that waits 24 days (the longest timer) holds the worker's one warm slot...
    const hog = randomUUID();
    await client.addWarm({ sessionId: hog, options, stream: {}, warmMs: 2 ** 31 - 1 });
    assert.ok(await client.sessions.waitReady(hog, 10_000), 'the long warm session got ready');
    // ...and a session of the sessions queue still runs at once.
    const normal = randomUUID();
    await client.start({ sessionId: normal, options, stream: {} }, 10_000, undefined, true);
    await client.push(normal, [prompt('normal').trim(), '{"type":"end_input"}']);
    let result: Record<string, unknown> | undefined;
    for await (const { entry } of client.sessions.follow(normal, '0-0', AbortSignal.timeout(15_000)))
      if (entry.message.type === 'result') {
        result = entry.message as unknown as Record<string, unknown>;
        break;
      }
    assert.equal(result?.result, 'normal answer', 'a normal session ran beside the long warm one');
    assert.equal(worker.child.exitCode, null, 'the worker is still running');
    assert.doesNotMatch(worker.stderr(), /Unhandled|uncaught/i);
  } finally {
    await warmQueue.obliterate({ force: true }).catch(() => undefined);
    await warmQueue.close();
    await client.close();
    await kill9(worker);
  }
});

// A warmMs past what a Node timer holds (2^31 - 1 ms, about 24.8 days) fires after 1 ms (TimeoutOverflowWarning):
// such a warm session must not be dropped (front end) or ended (worker) at once.
test('AGENTPIPE_WARM_MS above the longest timer: the warm session is not dropped and ended at once', async () => {
  await withCluster(
    async ({ front, worker, pooled }) => {
      const client = new Client(front.url);
      const assigned = await upgradeSession(client);
      await client.open();
      client.ws.terminate();
      assert.doesNotMatch(front.stderr() + worker.stderr(), /TimeoutOverflowWarning/);
      assert.equal(assigned, pooled, 'the connection got the ready warm session');
    },
    { AGENTPIPE_WARM_MS: String(3e9) },
  );
});

// 4. A worker killed -9 holding the ready warm session: the connection that takes it gets its prompt answered by
// another worker (a takeover: lock 2 s, stall check 1 s, lease 2 s), exactly once.
test('a worker killed holding the ready warm session: the client still gets exactly one result', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'survived' }]);
  const workers = [await startWorker(redis.url), await startWorker(redis.url)];
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir]);
  try {
    const [, pooled] = await front.waitFor(/warm session (\S+) is ready/);
    const holder = workers.find((w) => w.stderr().includes(`session ${pooled}: started`));
    assert.ok(holder, 'one worker holds the warm session');
    const other = workers.find((w) => w !== holder)!;
    await kill9(holder);
    const client = new Client(front.url);
    const assigned = await upgradeSession(client);
    await client.open();
    assert.equal(assigned, pooled, 'the connection took the session of the dead worker');
    client.send(prompt('are you there'));
    await client.until(() => client.results().length === 1, 'the result', 20_000);
    assert.equal(client.results()[0]!.result, 'survived');
    await other.waitFor(new RegExp(`session ${pooled}: started`));
    await endSession(client);
    assert.equal(client.results().length, 1, 'exactly one result on the wire');
    const log = await ClusterClient.open({ redis: redis.url });
    try {
      const results = (await log.sessions.read(pooled!)).filter((e) => e.message.type === 'result');
      assert.equal(results.length, 1, 'exactly one result in the log');
    } finally {
      await log.close();
    }
  } finally {
    await kill9(front);
    for (const w of workers) await kill9(w);
  }
});

// 5. Redis stopped while the pool refills (warm sessions dropped every second), then started again: the front end
// says so, serves sessions again, fills its pool again, and has no unhandled rejection; it exits 0 on SIGTERM.
test('Redis restarted while the warm pool refills: the front end keeps serving and exits cleanly', async () => {
  const own = await startRedis();
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'after the restart' }]);
  const worker = await startWorker(own.url);
  // Dropped from the pool 1 s after it is ready (max(warmMs / 2, warmMs - 5 s)): the pool refills all the time.
  const front = await startFrontEnd(own.url, ['--model', 'scripted', '--script', script, '--cwd', dir], {
    AGENTPIPE_WARM_MS: '2000',
  });
  try {
    const [, first] = await front.waitFor(/warm session (\S+) is ready/);
    await front.waitFor(new RegExp(`warm session (?!${first})\\S+ is ready`));
    const down = front.stderr().length;
    await own.stop();
    // The front end notices (its refill fails: the ready one is dropped within 1 s); it is still running.
    await eventually(
      () => /cannot keep a warm session/.test(front.stderr().slice(down)),
      'the refill failing without Redis',
      15_000,
    );
    assert.equal(front.child.exitCode, null, 'the front end runs on without Redis');
    const mark = front.stderr().length;
    await own.start();
    // A new connection gets its prompt answered (warm or not).
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('hello again'));
    await client.until(() => client.results().length === 1, 'the result after the restart', 30_000);
    assert.equal(client.results()[0]!.result, 'after the restart');
    await endSession(client);
    // The pool fills again.
    await eventually(
      () => /warm session \S+ is ready/.test(front.stderr().slice(mark)),
      'a warm session again',
      30_000,
    );
    front.child.kill('SIGTERM');
    assert.equal(await front.exited, 0, `the front end exits 0 on SIGTERM: ${front.stderr().slice(-2000)}`);
    assert.doesNotMatch(front.stderr(), /Unhandled|uncaught|ERR_UNHANDLED_REJECTION/i);
  } finally {
    await kill9(front);
    await kill9(worker);
    await own.stop();
  }
});
