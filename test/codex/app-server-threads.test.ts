/**
 * `agentpipe app-server` threads that last (thread/list, thread/read, thread/resume in a new server
 * process, thread/fork), and its WebSocket transport: the token and origin checks of `serve`, and
 * the bounded request queue answering -32001. Every frame validates against the pinned schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppServerClient } from './app-server-client.ts';
import { codexDirs, sdkEnv, wsAppServer as wsServer } from './helpers.ts';
import { startCli } from '../helpers/cli.ts';

function scripted(dir: { home: string }, turns: unknown[]): string {
  const script = path.join(dir.home, `script-${Math.random()}.json`);
  writeFileSync(script, JSON.stringify({ turns }));
  return script;
}

const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

test('thread/list and thread/read find saved threads; thread/resume in a new server keeps the history; thread/fork copies it', async () => {
  const dir = codexDirs('threads');
  const first = AppServerClient.stdio({
    args: ['--model', 'scripted', '--script', scripted(dir, [{ text: 'First answer.' }])],
    cwd: dir.cwd,
    env: sdkEnv(dir.home),
  });
  let threadId: string;
  try {
    await first.initialize();
    threadId = (await first.request('thread/start', { cwd: dir.cwd })).result.thread.id;
    const turn = await first.request('turn/start', { threadId, input: text('remember the word apple') });
    await first.turnCompleted(turn.result.turn.id);
    assert.deepEqual(first.schemaErrors, []);
  } finally {
    await first.close();
  }
  const second = AppServerClient.stdio({
    args: ['--model', 'scripted', '--script', scripted(dir, [{ text: 'Second answer.' }, { text: 'Forked answer.' }])],
    cwd: dir.cwd,
    env: sdkEnv(dir.home),
  });
  try {
    await second.initialize();
    const list = await second.request('thread/list', { cwd: dir.cwd });
    assert.deepEqual(
      list.result.data.map((t: { id: string; status: unknown; preview: string }) => [t.id, t.status, t.preview]),
      [[threadId, { type: 'notLoaded' }, 'remember the word apple']],
    );
    const read = await second.request('thread/read', { threadId, includeTurns: true });
    const items = read.result.thread.turns[0].items.map((i: { type: string; text?: string }) => i.text ?? i.type);
    assert.deepEqual(items, ['userMessage', 'First answer.']);
    assert.equal(read.result.thread.turns[0].status, 'completed');

    const resumed = await second.request('thread/resume', { threadId });
    assert.equal(resumed.result.thread.id, threadId);
    assert.equal(resumed.result.thread.turns.length, 1);
    const turn = await second.request('turn/start', { threadId, input: text('which word?') });
    const done = await second.turnCompleted(turn.result.turn.id);
    assert.equal(done.params.turn.items[0].text, 'Second answer.');
    const after = await second.request('thread/read', { threadId, includeTurns: true });
    assert.equal(after.result.thread.turns.length, 2);

    const fork = await second.request('thread/fork', { threadId });
    const forkId = fork.result.thread.id as string;
    assert.notEqual(forkId, threadId);
    assert.equal(fork.result.thread.forkedFromId, threadId);
    assert.equal(fork.result.thread.turns.length, 2);
    const forkTurn = await second.request('turn/start', { threadId: forkId, input: text('in the fork') });
    await second.turnCompleted(forkTurn.result.turn.id);
    const listed = await second.request('thread/list', { cwd: dir.cwd });
    assert.deepEqual(new Set(listed.result.data.map((t: { id: string }) => t.id)), new Set([threadId, forkId]));
    const missing = await second.request('thread/resume', { threadId: '0d9c1b2e-0000-4000-8000-000000000000' });
    assert.equal(missing.error.code, -32600);
    assert.deepEqual(second.schemaErrors, []);
  } finally {
    await second.close();
  }
});

test('WebSocket: a token is required, other origins are refused, JSON-RPC frames only', async () => {
  const dir = codexDirs('ws');
  const server = await wsServer(dir, ['--token', 'sekret']);
  try {
    const base = server.url.replace(/\?.*$/, '');
    await assert.rejects(AppServerClient.ws(base), /HTTP 401/);
    await assert.rejects(AppServerClient.ws(base, { authorization: 'Bearer wrong' }), /HTTP 401/);
    await assert.rejects(
      AppServerClient.ws(base, { authorization: 'Bearer sekret', origin: 'https://evil.example' }),
      /HTTP 403/,
    );
    const client = await AppServerClient.ws(base, { authorization: 'Bearer sekret' });
    try {
      await client.initialize();
      const thread = await client.request('thread/start', { cwd: dir.cwd });
      const turn = await client.request('turn/start', { threadId: thread.result.thread.id, input: text('hi') });
      const done = await client.turnCompleted(turn.result.turn.id);
      assert.equal(done.params.turn.status, 'completed');
      assert.ok(
        client.frames.every((f) => f.type === undefined),
        'no keep_alive or other non-JSON-RPC frames',
      );
      assert.deepEqual(client.schemaErrors, []);
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
});

test('WebSocket: a full request queue answers -32001 and serves the rest in order', async () => {
  const dir = codexDirs('queue');
  const server = await wsServer(dir, ['--no-token'], { AGENTPIPE_APP_SERVER_QUEUE: '2' });
  try {
    const client = await AppServerClient.ws(server.url);
    try {
      await client.initialize();
      await client.request('model/list', {}); // the server is idle now: `initialized` was handled
      // Eight requests in one frame: one runs, two wait, five find the queue full.
      const ids = client.reserveIds(Array(8).fill('thread/list'));
      client.raw(ids.map((id) => JSON.stringify({ id, method: 'thread/list', params: {} })).join('\n'));
      const answers = await Promise.all(ids.map((id) => client.waitFor((f) => f.id === id && f.method === undefined)));
      const overloaded = answers.filter((a) => a.error?.code === -32001);
      assert.equal(overloaded.length, 5);
      assert.deepEqual(overloaded[0]!.error, { code: -32001, message: 'Server overloaded; retry later.' });
      assert.deepEqual(
        answers.filter((a) => a.result).map((a) => a.id),
        ids.slice(0, 3),
      );
      assert.deepEqual(client.schemaErrors, []);
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
});
