/**
 * Issue 28 B5: Redis restarted without persistence, every session gone. Before, connected
 * clients hung with no word. Now every party that follows a session watches Redis's data epoch
 * (a key every restart without persistence loses): a WebSocket client with a prompt in flight
 * gets an error result that says Redis lost its data, then a close with the reason; a library
 * query gets one error result; `attach` says so and exits 1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { query } from '../../src/index.ts';
import { startCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, sessionOf, startFrontEnd, startWorker, UNTIL_RELEASED } from './cluster.ts';

test('B5: Redis restarted without its data: the connected client and a query each get one error result saying so, the socket closes with the reason, attach exits 1', async () => {
  const redis = await startRedis({ persistence: false });
  const dir = tempDir();
  const turns = [
    { tool_calls: [{ id: 'toolu_wait', name: 'Bash', input: { command: UNTIL_RELEASED } }] },
    { text: 'x' },
  ];
  const script = writeScript(dir, turns);
  const workers = await Promise.all([startWorker(redis.url), startWorker(redis.url)]);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
  ]);
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('wait'));
    const usesTool = (m: Record<string, any>) => m.type === 'assistant' && m.message.content[0]?.type === 'tool_use';
    await client.until(() => client.messages.some(usesTool), 'the tool call');

    const messages: Array<Record<string, any>> = [];
    const queried = (async () => {
      const options = { model: 'scripted', script, cwd: dir, permissionMode: 'bypassPermissions' as const };
      for await (const m of query({ prompt: 'wait too', options: { ...options, cluster: { redis: redis.url } } }))
        messages.push(m as Record<string, any>);
    })();
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (messages.some(usesTool)) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    // attach, following the session: its first lines printed, it follows on.
    const attach = startCli([
      'attach',
      sessionOf(client.messages),
      '--redis',
      redis.url,
      ...['--output-format', 'stream-json', '--verbose'],
    ]);
    attach.stdin!.end();
    let attachErr = '';
    attach.stderr!.setEncoding('utf8').on('data', (d: string) => (attachErr += d));
    const attachExit = new Promise<number | null>((resolve) => attach.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => attach.stdout!.once('data', () => resolve()));
    attach.stdout!.resume();

    await redis.stop();
    await redis.start(); // empty: no persistence

    const closed = await client.closed;
    assert.deepEqual(closed, { code: 1011, reason: 'Redis lost its data: the session is gone' });
    const results = client.results();
    assert.equal(results.length, 1, 'one result for the prompt in flight');
    assert.equal(results[0]!.is_error, true);
    assert.match(results[0]!.errors[0], /^Redis lost its data \(restarted without persistence, or flushed\)/);

    await queried;
    const queryResults = messages.filter((m) => m.type === 'result');
    assert.equal(queryResults.length, 1);
    assert.match(queryResults[0]!.errors[0], /^Redis lost its data/);

    assert.equal(await attachExit, 1, attachErr);
    assert.match(attachErr, /agentpipe attach: error: Redis lost its data/);
  } finally {
    writeFileSync(path.join(dir, 'release'), '');
    for (const cli of [front, ...workers]) await kill9(cli);
    await redis.stop();
  }
});
