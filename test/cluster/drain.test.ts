/**
 * A worker stopped with SIGTERM, with real processes on a private Redis: it takes no new prompt,
 * lets the running turn finish (one successful result, not an interruption), releases the
 * session's lease and hands the session back to the queue, and exits 0; another worker takes the
 * session over at once (no waiting for a lease to expire) and runs the prompt that came meanwhile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, sessionOf, startFrontEnd, startWorker, uuids } from './cluster.ts';

const redis = await startRedis();

test('SIGTERM: the running turn finishes, the next prompt goes to another worker at once, exit code 0', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { text: 'running it', tool_calls: [{ name: 'Bash', input: { command: 'sleep 1; echo slow' } }] },
    { text: 'first done' },
  ]);
  const first = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
  ]);
  let second: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('run the slow command'));
    await client.until(
      () =>
        client.messages.some(
          (m) => m.type === 'assistant' && m.message.content.some((b: any) => b.type === 'tool_use'),
        ),
      'the Bash call',
    );
    const sessionId = sessionOf(client.messages);
    // The next worker's model answers the next prompt (the first one read its script already).
    writeScript(dir, [{ text: 'second answer' }]);
    second = await startWorker(redis.url);
    first.child.kill('SIGTERM');
    await first.waitFor(/SIGTERM: draining/);
    client.send(prompt('and now?'));

    await client.until(() => client.results().length === 1, 'the running turn to finish');
    assert.deepEqual([client.results()[0]!.subtype, client.results()[0]!.result], ['success', 'first done']);
    assert.equal(await first.exited, 0, first.stderr());
    assert.match(first.stderr(), /drained: every session handed back/);
    const handedBack = Date.now();
    await second.waitFor(new RegExp(`session ${sessionId}: started`));
    const takeoverMs = Date.now() - handedBack;
    await client.until(() => client.results().length === 2, 'the second prompt, on the other worker');
    assert.deepEqual([client.results()[1]!.subtype, client.results()[1]!.result], ['success', 'second answer']);
    assert.doesNotMatch(first.stderr(), /interrupting/, 'no prompt was interrupted');
    assert.doesNotMatch(
      second.stderr(),
      /waiting for the previous owner's lease|was cut off/,
      'the lease was released',
    );
    assert.ok(takeoverMs < 1500, `taken over ${takeoverMs} ms after the first worker exited (its lease is 2000 ms)`);
    client.send('{"type":"end_input"}\n');
    await client.closed;
    const ids = uuids(client.messages);
    assert.equal(new Set(ids).size, ids.length, 'no message twice');
  } finally {
    await kill9(front);
    await kill9(first);
    if (second) await kill9(second);
  }
});

test('SIGTERM with a turn longer than --grace: it is interrupted (one result), the session goes on on another worker', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { text: 'running it', tool_calls: [{ name: 'Bash', input: { command: 'sleep 30' } }] },
    { text: 'never sent' },
  ]);
  const first = await startWorker(redis.url, {}, ['--grace', '300']);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
  ]);
  let second: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('run the endless command'));
    await client.until(
      () =>
        client.messages.some(
          (m) => m.type === 'assistant' && m.message.content.some((b: any) => b.type === 'tool_use'),
        ),
      'the Bash call',
    );
    writeScript(dir, [{ text: 'second answer' }]);
    second = await startWorker(redis.url);
    first.child.kill('SIGTERM');
    await client.until(() => client.results().length === 1, 'the interrupted turn');
    assert.equal(client.results()[0]!.is_error, true);
    assert.equal(await first.exited, 0, first.stderr());
    assert.match(first.stderr(), /grace period of 300 ms over: interrupting/);
    client.send(prompt('and now?'));
    await client.until(() => client.results().length === 2, 'the second prompt, on the other worker');
    assert.equal(client.results()[1]!.result, 'second answer');
    assert.doesNotMatch(second.stderr(), /waiting for the previous owner's lease/, 'the lease was released');
    client.send('{"type":"end_input"}\n');
    await client.closed;
    assert.equal(client.results().length, 2, 'one result per prompt');
  } finally {
    await kill9(front);
    await kill9(first);
    if (second) await kill9(second);
  }
});
