/**
 * A worker killed with SIGKILL while its permission request (`can_use_tool`) waits for the
 * client: the new owner cancels the request for the client (`control_cancel_request`, as Claude
 * Code does); the call never started, so the prompt goes on and the new owner asks again.
 * The state the client set (`set_permission_mode`) holds on the new owner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { SessionLog } from '../../src/cluster/redis.ts';
import { startRedis } from './redis-server.ts';
import { Client, kill9, prompt, sessionOf, startFrontEnd, startWorker } from './cluster.ts';

const redis = await startRedis();
const requests = (client: Client) =>
  client.messages.filter((m) => m.type === 'control_request' && m.request.subtype === 'can_use_tool');

test('takeover: the dead owner’s open can_use_tool is cancelled for the client; the call never started, so the prompt goes on and the new owner asks anew', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { tool_calls: [{ id: 'toolu_first', name: 'Bash', input: { command: 'touch one.txt && echo one' } }] },
    { text: 'never sent' },
  ]);
  const first = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-prompt-tool', 'stdio'],
  ]);
  let second: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('run it'));
    await client.until(() => requests(client).length === 1, 'the permission request');
    const [asked] = requests(client);
    assert.equal(asked!.request.tool_use_id, 'toolu_first');
    // The new owner's model (a fresh process reads the script from its start) answers once the call ran.
    writeScript(dir, [{ text: 'ran it' }]);
    second = await startWorker(redis.url);
    await kill9(first);

    await client.until(() => requests(client).length === 2, 'the permission request, asked by the new owner', 20_000);
    const cancel = client.messages.findIndex((m) => m.type === 'control_cancel_request');
    assert.ok(cancel >= 0, `a control_cancel_request: ${client.messages.map((m) => m.type).join(', ')}`);
    assert.deepEqual(client.messages[cancel], { type: 'control_cancel_request', request_id: asked!.request_id });
    const again = requests(client)[1]!;
    assert.ok(cancel < client.messages.indexOf(again), 'cancelled before it is asked again');
    assert.notEqual(again.request_id, asked!.request_id);
    assert.equal(again.request.tool_use_id, 'toolu_first', 'the same call: it never started');
    const lost = client.messages.find((m) => m.type === 'system' && m.subtype === 'worker_lost');
    assert.deepEqual(lost?.unknown_tool_use_ids, [], 'nothing of unknown outcome');
    assert.equal(client.results().length, 0, 'the prompt goes on');
    client.send(
      `${JSON.stringify({
        type: 'control_response',
        response: {
          subtype: 'success',
          request_id: again.request_id,
          response: { behavior: 'allow', updatedInput: again.request.input },
        },
      })}\n`,
    );
    await client.until(() => client.results().length === 1, "the prompt's one result");
    assert.deepEqual([client.results()[0]!.subtype, client.results()[0]!.result], ['success', 'ran it']);
    const toolResult = client.messages.find(
      (m) => m.type === 'user' && m.message.content.some?.((b: any) => b.tool_use_id === 'toolu_first'),
    );
    assert.match(JSON.stringify(toolResult), /one/, 'the tool ran once allowed');
    assert.ok(existsSync(path.join(dir, 'one.txt')));
    client.send('{"type":"end_input"}\n');
    await client.closed;
  } finally {
    await kill9(front);
    await kill9(first);
    if (second) await kill9(second);
  }
});

test('takeover: the state the client set (set_permission_mode) is set again on the new owner, silently, though the inbox was trimmed', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'one' }]);
  const first = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-prompt-tool', 'stdio'],
  ]);
  let second: Awaited<ReturnType<typeof startWorker>> | undefined;
  const log = new SessionLog({ redis: redis.url });
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(
      JSON.stringify({
        type: 'control_request',
        request_id: 'mode1',
        request: { subtype: 'set_permission_mode', mode: 'bypassPermissions' },
      }) + '\n',
    );
    await client.until(() => client.messages.some((m) => m.type === 'control_response'), 'the mode answer');
    client.send(prompt('first'));
    await client.until(() => client.results().length === 1, 'the first result');
    const sessionId = sessionOf(client.messages);
    assert.equal(await log.inputLength(sessionId), 1, 'the handled input is trimmed');
    writeScript(dir, [
      { tool_calls: [{ id: 'toolu_touch', name: 'Bash', input: { command: 'touch two.txt' } }] },
      { text: 'done' },
    ]);
    second = await startWorker(redis.url);
    await kill9(first);

    client.send(prompt('second'));
    await client.until(() => client.results().length === 2, 'the second result, on the new owner', 20_000);
    await second.waitFor(new RegExp(`session ${sessionId}: started`));
    assert.equal(client.results()[1]!.result, 'done');
    assert.equal(requests(client).length, 0, 'bypassPermissions held on the new owner: nothing asked');
    assert.ok(existsSync(path.join(dir, 'two.txt')), 'the tool ran');
    const inits = client.messages.filter((m) => m.type === 'system' && m.subtype === 'init');
    assert.equal(inits.at(-1)!.permissionMode, 'bypassPermissions');
    assert.equal(
      client.messages.filter((m) => m.type === 'control_response').length,
      1,
      'the replayed request was answered silently',
    );
    client.send('{"type":"end_input"}\n');
    await client.closed;
  } finally {
    await log.close();
    await kill9(front);
    await kill9(first);
    if (second) await kill9(second);
  }
});
