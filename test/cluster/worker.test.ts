/**
 * The worker pool end to end, with real processes on a private Redis: `serve --redis` front ends,
 * `agentpipe worker`s, `agentpipe attach`, a WebSocket client. Every message reaches the client
 * once and in order, one result per prompt; attach replays the same messages; a worker killed
 * with SIGKILL mid-turn is replaced within a bound and its prompt still ends with one result; a
 * client that loses its front end reconnects to another and misses nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, parseLines } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { SessionLog } from '../../src/cluster/redis.ts';
import { ViewStore } from '../../web/src/model/store.ts';
import { startRedis } from './redis-server.ts';
import WebSocket from 'ws';
import { watchedCli } from '../transport/ws-helpers.ts';
import {
  Client,
  eventually,
  kill9,
  prompt,
  sessionOf,
  startFrontEnd,
  startWorker,
  UNTIL_RELEASED,
  uuids,
} from './cluster.ts';

const redis = await startRedis();
/** The messages a log keeps (attach replays them; deltas and heartbeats are live only). */
const durable = (messages: Array<Record<string, any>>) =>
  messages.filter((m) => m.type !== 'stream_event' && m.type !== 'tool_progress');
const attach = (id: string, extra: string[] = []) =>
  runCli(['attach', id, '--redis', redis.url, '--output-format', 'stream-json', '--verbose', ...extra], {
    timeoutMs: 15_000,
  });

test('one worker, one front end: two prompts, every message once and in order, one result each; attach replays them (--from: the later ones)', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'first answer' }, { text: 'second answer' }]);
  const worker = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, ['--model', 'scripted', '--script', script, '--cwd', dir]);
  const client = new Client(front.url);
  await client.open();
  client.send(prompt('one'));
  await client.until(() => client.results().length === 1, 'the first result');
  client.send(prompt('two'));
  await client.until(() => client.results().length === 2, 'the second result');
  client.send('{"type":"end_input"}\n');
  assert.deepEqual(await client.closed, { code: 1000, reason: 'session ended' });

  const kinds = client.messages.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));
  assert.deepEqual(kinds, ['system/init', 'assistant', 'result', 'system/init', 'assistant', 'result']);
  assert.deepEqual(
    client.results().map((r) => [r.subtype, r.result]),
    [
      ['success', 'first answer'],
      ['success', 'second answer'],
    ],
  );
  const ids = uuids(client.messages);
  assert.equal(new Set(ids).size, ids.length, 'no message twice');
  const sessionId = sessionOf(client.messages);
  assert.ok(client.messages.every((m) => m.session_id === sessionId));

  // (b) attach from another process: the same messages, the same uuids; --from gives the later ones.
  const all = await attach(sessionId);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(parseLines(all.stdout), client.messages);
  const firstResult = client.results()[0]!;
  const later = await attach(sessionId, ['--from', firstResult.uuid]);
  assert.equal(later.code, 0, later.stderr);
  assert.deepEqual(uuids(parseLines(later.stdout)), ids.slice(ids.indexOf(firstResult.uuid) + 1));
  const log = new SessionLog({ redis: redis.url });
  const streamId = await log.idOfUuid(sessionId, firstResult.uuid);
  await log.close();
  const byId = await attach(sessionId, ['--from', streamId!]);
  assert.deepEqual(
    parseLines(byId.stdout),
    parseLines(later.stdout),
    '--from <stream id> is the same as --from <uuid>',
  );
  const unknown = await attach('00000000-0000-4000-8000-000000000000');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^agentpipe attach: error: no session 00000000-0000-4000-8000-000000000000 in Redis/);
  await kill9(front);
  await kill9(worker);
});

test('a worker killed with SIGKILL mid-tool: another takes the session over, the call is reported unknown (not run again), the prompt goes on to its success, the next has the history', async () => {
  const dir = tempDir();
  const debugFile = path.join(dir, 'debug.log');
  const ledger = path.join(dir, 'ledger.txt');
  const script = writeScript(dir, [
    {
      text: 'running it',
      tool_calls: [{ id: 'toolu_slow', name: 'Bash', input: { command: `echo ran >> ${ledger}; ${UNTIL_RELEASED}` } }],
    },
    { text: 'never sent' },
  ]);
  const first = await startWorker(redis.url);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
    ...['--debug', 'api', '--debug-file', debugFile],
  ]);
  const client = new Client(front.url);
  await client.open();
  client.send(prompt('run the slow command'));
  await client.until(
    () =>
      client.messages.some((m) => m.type === 'assistant' && m.message.content.some((b: any) => b.type === 'tool_use')),
    'the Bash call',
  );
  await first.waitFor(/session \S+: started/);
  await eventually(() => existsSync(ledger), 'the Bash call running');
  // The new owner's model (a fresh process reads the script from its start) goes on with the cut prompt, then answers
  // the next one.
  writeScript(dir, [{ text: 'its outcome is unknown; I carry on' }, { text: 'second answer' }]);
  const second = await startWorker(redis.url);
  const killedAt = Date.now();
  await kill9(first);

  await client.until(() => client.results().length === 1, "the cut-off prompt's result", 20_000);
  const takeoverMs = Date.now() - killedAt;
  assert.ok(takeoverMs < 12_000, `taken over after ${takeoverMs} ms`);
  await second.waitFor(
    /session \S+: prompt \S+ was cut off by its worker's end \(1 tool call\(s\) of unknown outcome\); it goes on here/,
  );
  const [cut] = client.results();
  assert.deepEqual(
    [cut!.subtype, cut!.is_error, cut!.result],
    ['success', false, 'its outcome is unknown; I carry on'],
  );
  const lost = client.messages.find((m) => m.type === 'system' && m.subtype === 'worker_lost');
  assert.ok(lost, 'a system/worker_lost notice');
  assert.deepEqual(lost.unknown_tool_use_ids, ['toolu_slow']);
  assert.match(
    lost.content,
    new RegExp(
      String.raw`was lost; worker \S+ took the session over\. The prompt goes on here\. ` +
        String.raw`The outcome of Bash \(toolu_slow\) is unknown`,
    ),
  );
  const unknown = client.messages.find(
    (m) => m.type === 'user' && Array.isArray(m.message.content) && m.message.content[0]?.tool_use_id === 'toolu_slow',
  );
  assert.ok(unknown, 'the call got a tool_result');
  assert.match(unknown.message.content[0].content, /^The outcome of this tool call is unknown/);
  assert.equal(unknown.message.content[0].is_error, true);
  assert.ok(client.messages.indexOf(lost) < client.messages.indexOf(unknown), 'the notice first');
  assert.ok(!client.messages.some((m) => /interrupted by user/.test(JSON.stringify(m))), 'never "interrupted by user"');
  // The viewer's projection of the same stream says so (issue 30): a "worker lost" notice, no "Interrupted".
  const view = new ViewStore();
  for (const m of client.messages) view.push(m as never);
  const notices = view.items.flatMap((i) => (i.kind === 'notice' ? [`${i.level}: ${i.title}`] : []));
  assert.deepEqual(notices, ['retry: Worker lost: the session was taken over']);
  assert.equal(view.tools.get('toolu_slow')?.status, 'failed', 'the cut call shows as failed (its outcome unknown)');

  client.send(prompt('and now?'));
  await client.until(() => client.results().length === 2, "the second prompt's result");
  assert.deepEqual([client.results()[1]!.subtype, client.results()[1]!.result], ['success', 'second answer']);
  client.send('{"type":"end_input"}\n');
  await client.closed;
  assert.equal(readFileSync(ledger, 'utf8'), 'ran\n', 'the call ran once');

  const ids = uuids(client.messages);
  assert.equal(new Set(ids).size, ids.length, 'no message twice');
  assert.equal(client.results().length, 2, 'one result per prompt');
  // The new worker's requests hold the history: the continued one prompt 1, the Bash call and its unknown result; the
  // second prompt's, that and the answer and prompt 2.
  const requests = readFileSync(debugFile, 'utf8')
    .split('\n')
    .filter((l) => /request: model/.test(l));
  assert.equal(requests.length, 3, requests.join('\n'));
  assert.match(requests[1]!, /, 3 messages,/, `the continued request holds the cut turn:\n${requests.join('\n')}`);
  assert.match(
    requests[2]!,
    /, 5 messages,/,
    `the second prompt's request holds the whole history:\n${requests.join('\n')}`,
  );
  const replay = await attach(sessionOf(client.messages));
  assert.deepEqual(
    uuids(parseLines(replay.stdout)),
    uuids(durable(client.messages)),
    'the log holds what the client got, once',
  );
  await kill9(front);
  await kill9(second);
  writeFileSync(path.join(dir, 'release'), ''); // the dead worker's orphaned call ends
});

test('a front end restarted mid-stream: the client reconnects to another with its last message and misses nothing', async () => {
  const dir = tempDir();
  const turns = [
    { text: 'step one', tool_calls: [{ name: 'Bash', input: { command: 'echo one' } }] },
    { text: 'step two', tool_calls: [{ name: 'Bash', input: { command: 'sleep 1; echo two' } }] },
    { text: 'all done' },
  ];
  const script = writeScript(dir, turns);
  const flags = ['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'];
  const worker = await startWorker(redis.url);
  const one = await startFrontEnd(redis.url, flags);
  const two = await startFrontEnd(redis.url, flags);
  const before = new Client(one.url);
  await before.open();
  before.send(prompt('two steps'));
  await before.until(
    () => before.messages.some((m) => m.type === 'user' && m.tool_use_result),
    'the first tool result',
  );
  await kill9(one);
  await before.closed;
  const last = before.messages.at(-1)!;
  const sessionId = sessionOf(before.messages);
  const after = new Client(`${two.url}?session=${sessionId}&from=${last.uuid}`);
  await after.open();
  await after.until(() => after.results().length === 1, 'the result, through the second front end');
  after.send('{"type":"end_input"}\n');
  await after.closed;

  const got = [...before.messages, ...after.messages];
  const ids = uuids(got);
  assert.equal(new Set(ids).size, ids.length, 'nothing twice');
  const replay = await attach(sessionId);
  assert.deepEqual(
    uuids(parseLines(replay.stdout)),
    uuids(durable(got)),
    'nothing missed: the client has the whole log, in order',
  );
  assert.equal(after.results()[0]!.result, 'all done');
  await kill9(two);
  await kill9(worker);
});

test('Redis unreachable: worker and serve --redis fail with one clear line within seconds (exit 1)', async () => {
  const { freePort } = await import('./redis-server.ts');
  const url = `redis://127.0.0.1:${await freePort()}`;
  for (const args of [
    ['worker', '--redis', url],
    ['serve', '--redis', url, '--port', '0', '--no-token', '--model', 'scripted'],
  ]) {
    const started = Date.now();
    const run = await runCli(args, { timeoutMs: 15_000 });
    const ms = Date.now() - started;
    assert.equal(run.code, 1, `${args[0]}: ${run.stderr}`);
    const refused =
      // eslint-disable-next-line max-len -- an expected message as one regex literal reads best whole
      /^agentpipe (worker|serve): error: cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+: connection refused: is redis-server running/;
    assert.match(run.stderr, refused);
    assert.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr}`);
    assert.ok(ms < 8000, `${args[0]} failed after ${ms} ms`);
  }
});

test("serve --redis keeps serve's doors: no token, a wrong token or another origin is refused before any session exists", async () => {
  const dir = tempDir();
  const front = watchedCli([
    'serve',
    '--redis',
    redis.url,
    '--port',
    '0',
    '--token',
    'the-token',
    '--model',
    'scripted',
    '--cwd',
    dir,
  ]);
  try {
    const [, url] = await front.waitFor(/listening on (ws:\/\/\S+)/);
    const base = url!.replace(/\?.*$/, '');
    const status = (target: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(target, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => resolve(-1));
      });
    assert.equal(await status(base), 401, 'no token');
    assert.equal(await status(`${base}?token=wrong`), 401, 'a wrong token');
    assert.equal(
      await status(`${base}?token=the-token`, { Origin: 'https://evil.example' }),
      403,
      'another origin, even with the token',
    );
    assert.equal(await status(`${base}?token=the-token`), 101, 'the token opens it');
  } finally {
    await kill9(front);
  }
});
