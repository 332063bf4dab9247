/**
 * SessionLog.follow gives durable messages and deltas in append order, on a private redis-server:
 * when one append script adds a message, deltas and a message while the follower is blocked (Redis
 * 7.0 answers the blocked XREAD with the log alone), when the live stream holds more deltas than
 * one read's COUNT, and end to end through `serve --redis` and `attach --include-partial-messages`
 * with a real worker (tool-call deltas before their assistant message, as in one process).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { SessionLog, type FollowedEntry, type LogMessage } from '../../src/cluster/redis.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { watchedCli } from '../transport/ws-helpers.ts';
import { startRedis } from './redis-server.ts';
import { assistant, delta, textOf } from './messages.ts';
import { Client, kill9, prompt, startFrontEnd, startWorker } from './cluster.ts';

const server = await startRedis();
const log = new SessionLog({ redis: server.url, liveMaxLen: 100_000 });
const raw = new Redis(server.url);
after(async () => {
  await log.close();
  raw.disconnect();
});

/** Resolves once Redis has a client blocked in a read (polled: an event of the server, not a guess at time). */
async function blockedReader(): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!/blocked_clients:[1-9]/.test(await raw.info('clients'))) {
    assert.ok(Date.now() < deadline, 'no blocked reader');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Takes the next `n` items of a follow (the follow goes on). */
async function take(items: AsyncGenerator<FollowedEntry>, n: number): Promise<string[]> {
  const got: string[] = [];
  while (got.length < n) {
    const next = await items.next();
    if (next.done) break;
    const { kind, entry } = next.value;
    got.push(`${kind === 'live' ? '~' : ''}${textOf(entry.message)}`);
  }
  return got;
}

test('a message, its deltas and the next message in one append reach a blocked follower in that order', async () => {
  const id = randomUUID();
  const owner = randomUUID();
  assert.ok(await log.acquire(id, owner, 60_000));
  await log.append(id, owner, [assistant(id, 'm0')]);
  const stop = new AbortController();
  const items = log.follow(id, '0-0', stop.signal, { fromId: '0-0' });
  assert.deepEqual(await take(items, 1), ['m0']);
  for (let round = 1; round <= 5; round++) {
    const following = take(items, 4);
    await blockedReader();
    const batch: LogMessage[] = [
      assistant(id, `a${round}`),
      delta(id, `x${round}`),
      delta(id, `y${round}`),
      assistant(id, `b${round}`),
    ];
    await log.append(id, owner, batch);
    assert.deepEqual(await following, [`a${round}`, `~x${round}`, `~y${round}`, `b${round}`], `round ${round}`);
  }
  stop.abort();
  await items.return(undefined);
});

test('a batch appended again (a retry after a lost reply) lands its messages once, and a follower gives its deltas once', async () => {
  const id = randomUUID();
  const owner = randomUUID();
  assert.ok(await log.acquire(id, owner, 60_000));
  const batch: LogMessage[] = [delta(id, 'd1'), delta(id, 'd2'), assistant(id, 'm1'), delta(id, 'd3')];
  await log.append(id, owner, batch);
  await log.append(id, owner, batch); // the same records again: the reply to the first was lost
  await log.append(id, owner, [assistant(id, 'm2')]);
  assert.equal((await log.readLive(id)).length, 6, 'the live stream holds the repeated deltas');
  const stop = new AbortController();
  const items = log.follow(id, '0-0', stop.signal, { fromId: '0-0' });
  assert.deepEqual(await take(items, 5), ['~d1', '~d2', 'm1', '~d3', 'm2']);
  stop.abort();
});

test('more deltas than one read takes: the message after them still comes after them', async () => {
  const id = randomUUID();
  const owner = randomUUID();
  assert.ok(await log.acquire(id, owner, 60_000));
  const deltas = Array.from({ length: 2500 }, (_, i) => delta(id, `d${i}`));
  await log.append(id, owner, [assistant(id, 'first'), ...deltas, assistant(id, 'second'), delta(id, 'tail')]);
  const stop = new AbortController();
  const items = log.follow(id, '0-0', stop.signal, { fromId: '0-0' });
  const got = await take(items, 2503);
  stop.abort();
  await items.return(undefined);
  assert.deepEqual(got, ['first', ...deltas.map((_, i) => `~d${i}`), 'second', '~tail']);

  // From the middle: `from` a durable id and the live stream from a delta's id, nothing twice.
  const live = await log.readLive(id);
  const durable = await log.read(id);
  const again = new AbortController();
  const more = log.follow(id, durable[0]!.id, again.signal, { fromId: live[1999]!.id });
  const rest = await take(more, 502);
  again.abort();
  await more.return(undefined);
  assert.deepEqual(rest, [...deltas.slice(2000).map((_, i) => `~d${2000 + i}`), 'second', '~tail']);
});

test('through serve --redis and attach: tool-call deltas come before their assistant message', async () => {
  const dir = tempDir();
  const turns = Array.from({ length: 4 }, (_, i) => ({
    text: `step ${i} `.repeat(6),
    chunk_size: 3,
    tool_calls: [{ name: 'Bash', input: { command: `echo ${i}` } }],
  }));
  const script = writeScript(dir, [{ text: 'ready' }, ...turns, { text: 'done', chunk_size: 2 }]);
  const worker = await startWorker(server.url);
  const front = await startFrontEnd(server.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--include-partial-messages'],
    ...['--permission-mode', 'bypassPermissions'],
  ]);
  let attach: ReturnType<typeof watchedCli> | undefined;
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('warm up'));
    await client.until(() => client.results().length === 1, 'the first result');
    const session = client.messages[0]!.session_id as string;

    // attach follows the session live (it has printed the log so far once the first result is out).
    attach = watchedCli([
      ...['attach', session, '--redis', server.url],
      ...['--output-format', 'stream-json', '--verbose', '--include-partial-messages'],
    ]);
    let out = '';
    const wakes = new Set<() => void>();
    attach.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      for (const wake of wakes) wake();
    });
    const printed = (): Array<Record<string, any>> =>
      out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>);
    const attachResults = async (n: number): Promise<void> => {
      const deadline = Date.now() + 15_000;
      while (printed().filter((m) => m.type === 'result').length < n) {
        assert.ok(Date.now() < deadline, `attach printed ${n} results: ${out.slice(-500)}`);
        await new Promise<void>((resolve) => {
          wakes.add(resolve);
          setTimeout(resolve, 200);
        }).finally(() => wakes.clear());
      }
    };
    await attachResults(1);

    client.send(prompt('go'));
    await client.until(() => client.results().length === 2, 'the second result');
    checkOrder(client.messages, 'serve --redis');
    await attachResults(2);
    const closed = client.closed;
    client.send('{"type":"end_input"}\n');
    await closed;
    assert.equal(await attach.exited, 0, 'attach ends at the end of the run');
    const lines = printed();
    // The first turn was printed from the log (durable messages only); the second one live.
    checkOrder(lines.slice(lines.findIndex((m) => m.type === 'result') + 1), 'attach');
  } finally {
    if (attach) await kill9(attach);
    await kill9(front);
    await kill9(worker);
  }
});

/**
 * Each assistant message comes after every delta of its block: its text (or tool input) is what
 * that block's deltas add up to (no delta of it comes later). agentpipe sends a block's assistant
 * message once the next block starts, as Claude Code does, so blocks are told apart by index.
 */
function checkOrder(messages: Array<Record<string, any>>, where: string): void {
  let blocks: Array<{ type: string; text: string }> = [];
  let checked = 0;
  let tools = 0;
  for (const m of messages) {
    if (m.type === 'stream_event' && m.event.type === 'message_start') blocks = [];
    if (m.type === 'stream_event' && m.event.type === 'content_block_start')
      blocks[m.event.index] = { type: m.event.content_block.type, text: '' };
    if (m.type === 'stream_event' && m.event.type === 'content_block_delta')
      blocks[m.event.index]!.text += m.event.delta.text ?? m.event.delta.partial_json ?? '';
    if (m.type !== 'assistant' || !m.message.content.length) continue;
    const block = m.message.content.at(-1);
    const streamed = blocks.findLast((b) => b?.type === block.type);
    assert.ok(streamed, `${where}: the ${block.type} block was streamed before its message`);
    if (block.type === 'text')
      assert.equal(block.text, streamed.text, `${where}: every delta of "${block.text}" before it`);
    if (block.type === 'tool_use') {
      assert.deepEqual(block.input, JSON.parse(streamed.text), `${where}: every input delta before the tool call`);
      tools++;
    }
    checked++;
  }
  assert.ok(checked >= 9 && tools === 4, `${where}: the streamed assistant messages (${checked}, ${tools} tool calls)`);
}
