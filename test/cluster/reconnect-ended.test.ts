/**
 * A `serve --redis` client that reconnects right after ending its input gets its next prompt run,
 * with a real worker and front end on a private Redis: the previous run's end marker (still the
 * log's last entry when the new connection starts, or appended just after) does not close the
 * new connection, and the new run is queued even while the old run's job is still finishing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, startFrontEnd, startWorker, uuids } from './cluster.ts';

const redis = await startRedis();

test('serve --redis: a reconnect right after end_input runs its prompt (three times in a row), and the worker stays free', async () => {
  const dir = tempDir();
  // Each run opens the session anew: a scripted model starts its script again.
  const script = writeScript(dir, [{ text: 'answer' }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir],
    '--replay-user-messages',
  ]);
  try {
    const first = new Client(front.url);
    await first.open();
    first.send(prompt('zero'));
    await first.until(() => first.results().length === 1, 'the first result');
    const session = first.messages[0]!.session_id as string;
    let last = first.results()[0]!.uuid as string;
    const closing = first.closed;
    first.send('{"type":"end_input"}\n');
    assert.equal((await closing).code, 1000);
    const seen = [...first.messages];

    for (let round = 1; round <= 3; round++) {
      // Rounds 1 and 2 reconnect once the old connection closed; round 3 while it is still closing.
      const next = new Client(`${front.url}?session=${session}&from=${last}`);
      await next.open();
      next.send(prompt(`prompt ${round}`));
      await next.until(() => next.results().length === 1, `the result of round ${round}`);
      const result = next.results()[0]!;
      assert.equal(result.subtype, 'success');
      assert.equal(result.result, 'answer');
      const echoed = next.messages.filter((m) => m.type === 'user' && m.isReplay).map((m) => m.message.content);
      assert.deepEqual(echoed, [`prompt ${round}`], 'this prompt ran');
      assert.equal(result.session_id, session);
      assert.ok(!next.messages.some((m) => m.type === 'result' && m.uuid === last), 'only what came after `from`');
      seen.push(...next.messages);
      last = result.uuid as string;
      const closed = next.closed;
      next.send('{"type":"end_input"}\n');
      if (round < 3) assert.deepEqual(await closed, { code: 1000, reason: 'session ended' });
    }

    // The one worker is free: a new session is answered.
    const fresh = new Client(front.url);
    await fresh.open();
    fresh.send(prompt('new'));
    await fresh.until(() => fresh.results().length === 1, 'the fresh session');
    assert.equal(fresh.results()[0]!.result, 'answer');
    assert.notEqual(fresh.results()[0]!.session_id, session);
    assert.equal(new Set(uuids(seen)).size, uuids(seen).length, 'no message twice');
  } finally {
    await kill9(front);
    await kill9(worker);
  }
});

test('serve --redis: a client cut off before its run ended reconnects after the end and gets the rest, then the close', async () => {
  const { SessionLog } = await import('../../src/cluster/redis.ts');
  const log = new SessionLog({ redis: redis.url });
  const dir = tempDir();
  // The answer waits 500 ms, so the client is cut off before it.
  const script = writeScript(dir, [{ text: 'the answer', chunk_size: 3, delay_ms: 500 }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir]);
  try {
    const first = new Client(front.url);
    await first.open();
    first.send(prompt('hi') + '{"type":"end_input"}\n');
    await first.until(() => first.messages.length > 0, 'the first message');
    const session = first.messages[0]!.session_id as string;
    const seen = first.messages.filter((m) => m.type !== 'stream_event');
    const last = seen.at(-1)!.uuid as string;
    assert.equal(first.results().length, 0, 'cut off before the result');
    first.ws.terminate(); // the connection is lost before the run ends
    // The run ends while the client is away: its log ends with the result and the end marker.
    for (let i = 0; ; i++) {
      const entries = await log.read(session);
      if (entries.at(-1)?.message.type === 'agentpipe_session_end') break;
      assert.ok(i < 500, 'the run ended');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const next = new Client(`${front.url}?session=${session}&from=${last}`);
    await next.open();
    assert.deepEqual(await next.closed, { code: 1000, reason: 'session ended' });
    const results = next.results();
    assert.equal(results.length, 1, 'the missed result comes, once');
    assert.equal(results[0]!.result, 'the answer');
    assert.ok(!next.messages.some((m) => m.uuid === last), 'only what came after `from`');
  } finally {
    await log.close();
    await kill9(front);
    await kill9(worker);
  }
});
