/**
 * The cluster's front end, with real processes on a private Redis: it names the session in the
 * upgrade response before the first message (as `serve` does), and a client that reconnects
 * `from` the uuid of a delta (an ephemeral `stream_event`) goes on right after that delta.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, startFrontEnd, startWorker, uuids } from './cluster.ts';

const redis = await startRedis();
const TEXT = 'abcdefghijklmnopqrstuvwxyz';
const deltaText = (messages: Array<Record<string, any>>): string =>
  messages
    .filter((m) => m.type === 'stream_event' && m.event.type === 'content_block_delta')
    .map((m) => m.event.delta.text ?? '')
    .join('');

test('serve --redis: the upgrade response names the session; a reconnect from a delta goes on after it', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: TEXT, chunk_size: 2, delay_ms: 40 }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--include-partial-messages'],
  ]);
  try {
    const first = new Client(front.url);
    const header = await new Promise<string | undefined>((resolve, reject) => {
      first.ws.on('upgrade', (res) => resolve(res.headers['x-agentpipe-session-id']?.toString()));
      first.ws.on('error', reject);
    });
    assert.match(header ?? '', /^[0-9a-f-]{36}$/, 'the session id, before any message');
    await first.open();
    first.send(prompt('spell it'));
    await first.until(() => deltaText(first.messages).length >= 4, 'a few deltas');
    first.ws.close();
    await first.closed;
    const last = first.messages.at(-1)!;
    assert.equal(last.type, 'stream_event', 'the client left in the middle of the deltas');
    assert.ok(first.messages.every((m) => m.session_id === header));

    const second = new Client(`${front.url}?session=${header}&from=${last.uuid}`);
    await second.open();
    await second.until(() => second.results().length === 1, 'the result, after the reconnect');
    const closing = second.closed;
    second.send('{"type":"end_input"}\n');
    assert.deepEqual(await closing, { code: 1000, reason: 'session ended' }, 'accepted, not refused with 1008');
    assert.equal(deltaText(first.messages) + deltaText(second.messages), TEXT, 'every delta once, in order');
    const all = [...first.messages, ...second.messages];
    assert.equal(new Set(uuids(all)).size, uuids(all).length, 'nothing twice');
    assert.deepEqual(
      second.messages.filter((m) => m.type !== 'stream_event').map((m) => m.type),
      ['assistant', 'result'],
    );

    // A uuid the session never had is still refused.
    const bogus = new WebSocket(`${front.url}?session=${header}&from=00000000-0000-4000-8000-000000000000`);
    const refused = await new Promise<number>((resolve) => bogus.on('close', (code) => resolve(code)));
    assert.equal(refused, 1008);
  } finally {
    await kill9(front);
    await kill9(worker);
  }
});
