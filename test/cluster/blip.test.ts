/**
 * Issue 28 B2: a client that connects while Redis blinks. Before, it was refused (`1008 cannot
 * start session`) while its prompt still ran, and locked out of its own session (the warm pool's
 * mark stayed). Now a new session's start (its warm claim, or its job) is retried through the
 * blip, and its input goes to the inbox only once the start is confirmed: a blip shorter than the
 * front end's retry bound costs a delay; a longer one gets the client a clear refusal, and nothing
 * of its input ever runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionLog } from '../../src/cluster/redis.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, startFrontEnd, startWorker } from './cluster.ts';

test('B2: a connection during a Redis restart takes its warm session once Redis is back; its prompt runs once and its reconnects are let in', async () => {
  const redis = await startRedis();
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'answered' }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir]);
  try {
    const [, pooled] = await front.waitFor(/warm session (\S+) is ready/);
    await redis.stop();
    const client = new Client(front.url);
    const header = await new Promise<string | undefined>((resolve, reject) => {
      client.ws.on('upgrade', (res) => resolve(res.headers['x-agentpipe-session-id']?.toString()));
      client.ws.on('error', reject);
    });
    assert.equal(header, pooled);
    await client.open();
    client.send(prompt('hello'));
    await redis.start();
    await client.until(() => client.results().length === 1, 'the result', 30_000);
    assert.deepEqual([client.results()[0]!.subtype, client.results()[0]!.result], ['success', 'answered']);
    assert.doesNotMatch(front.stderr(), /cannot start session/);
    client.ws.close();
    await client.closed;

    // Its own session, again: not refused as "no such session".
    const again = new Client(`${front.url}?session=${pooled}&from=${client.results()[0]!.uuid}`);
    await again.open();
    again.send('{"type":"end_input"}\n');
    assert.deepEqual(await again.closed, { code: 1000, reason: 'session ended' });
  } finally {
    await kill9(front);
    await kill9(worker);
    await redis.stop();
  }
});

test('B2: Redis away longer than the front end waits: the client is refused with the reason, and nothing of its input runs', async () => {
  const redis = await startRedis();
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'never answered' }]);
  const worker = await startWorker(redis.url, { AGENTPIPE_HAND_BACK_MS: '1000' });
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir], {
    AGENTPIPE_FRONT_END_RETRY_MS: '1000',
    AGENTPIPE_WARM_MS: '4000',
  });
  try {
    const [, pooled] = await front.waitFor(/warm session (\S+) is ready/);
    await redis.stop();
    const stoppedAt = Date.now();
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('hello'));
    const closed = await client.closed;
    console.log(`# refused ${Date.now() - stoppedAt} ms after Redis went away`);
    assert.equal(closed.code, 1008);
    assert.match(closed.reason, new RegExp(`^cannot start session ${pooled}: Redis `));
    assert.deepEqual(client.results(), [], 'no result: no prompt ran');
    await redis.start();

    // The warm session was never claimed: its worker ends it when its warm time runs out, and deletes every key.
    await worker.waitFor(new RegExp(`session ${pooled}: unclaimed`), 30_000).catch(async (e) => {
      await new Promise((r) => setTimeout(r, 100));
      console.log('FRONT', front.stderr());
      throw e;
    });
    const log = new SessionLog({ redis: redis.url });
    try {
      assert.equal(await log.exists(pooled), false, 'no log: nothing of it ran');
      assert.deepEqual(await log.readInput(pooled), [], 'its input never reached the inbox');
      assert.equal(await log.isPooled(pooled), false, 'no pooled mark left behind');
    } finally {
      await log.close();
    }
  } finally {
    await kill9(front);
    await kill9(worker);
    await redis.stop();
  }
});
