import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocketServer, type WebSocket } from 'ws';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { kinds, userLine, watchedCli } from './ws-helpers.ts';

const TEXT = 'The quick brown fox jumps over the lazy dog; '.repeat(8);

test('--sdk-url: a scripted session over a WebSocket survives a forced disconnect with no lost or duplicated line', async (t) => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: TEXT, chunk_size: 8, delay_ms: 15 }]);
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  t.after(() => wss.close());
  await new Promise((resolve) => wss.once('listening', resolve));
  const port = (wss.address() as { port: number }).port;

  const received: Array<Record<string, any>> = [];
  const closes: number[] = [];
  let connections = 0;
  const paths: string[] = [];
  wss.on('connection', (ws: WebSocket, req) => {
    const n = ++connections;
    paths.push(req.url ?? '');
    let dropped = false;
    if (n === 1) ws.send(userLine('tell me about the fox') + '{"type":"end_input"}\n');
    else ws.send(JSON.stringify({ type: 'keep_alive', ack: received.length }) + '\n');
    ws.on('close', (code) => closes.push(code));
    ws.on('message', (data) => {
      if (dropped) return;
      for (const line of data.toString().split('\n').filter(Boolean)) received.push(JSON.parse(line));
      ws.send(JSON.stringify({ type: 'keep_alive', ack: received.length }));
      // Drop the first connection abruptly in the middle of the streamed answer.
      if (n === 1 && received.length >= 12) {
        dropped = true;
        ws.terminate();
      }
    });
  });

  const cli = watchedCli([
    '--sdk-url',
    `ws://127.0.0.1:${port}/session/abc`,
    '--model',
    'scripted',
    '--script',
    script,
    '--include-partial-messages',
  ]);
  const code = await cli.exited;

  assert.equal(code, 0, cli.stderr());
  assert.equal(connections, 2);
  assert.deepEqual(paths, ['/session/abc', '/session/abc']);
  assert.match(cli.stderr(), /--sdk-url connection lost \(code 1006\); reconnecting/);
  assert.equal(closes.at(-1), 1000, 'the CLI closes the last connection normally');
  const uuids = received.map((m) => m.uuid);
  assert.equal(new Set(uuids).size, uuids.length, 'no line twice');
  const conversation = received.filter((m) => m.type !== 'stream_event');
  assert.deepEqual(kinds(conversation), ['system/init', 'system/status', 'assistant', 'result']);
  const deltas = received.filter((m) => m.type === 'stream_event' && m.event.type === 'content_block_delta');
  assert.equal(deltas.length, Math.ceil(TEXT.length / 8), 'no delta lost');
  assert.equal(deltas.map((m) => m.event.delta.text).join(''), TEXT);
  const events = received.filter((m) => m.type === 'stream_event').map((m) => m.event.type);
  assert.equal(events[0], 'message_start');
  assert.equal(events.at(-1), 'message_stop');
  assert.equal(conversation[3]!.result, TEXT);
});

test('--sdk-url: no server to reach is a clear error and exit 1', async () => {
  const cli = watchedCli(['--sdk-url', 'ws://127.0.0.1:9/nothing', '--model', 'scripted'], {
    AGENTPIPE_WS_MAX_RETRIES: '1',
  });
  assert.equal(await cli.exited, 1);
  assert.match(cli.stderr(), /could not reach the --sdk-url client at ws:\/\/127\.0\.0\.1:9\/nothing after 1 retries/);
  assert.doesNotMatch(cli.stderr(), /\n\s+at /);
});

test('--sdk-url: a URL that is not ws:// is a usage error', async () => {
  const cli = watchedCli(['--sdk-url', 'http://example.com', '--model', 'scripted']);
  assert.equal(await cli.exited, 1);
  assert.match(cli.stderr(), /--sdk-url must be a ws:\/\/ or wss:\/\/ URL/);
});
