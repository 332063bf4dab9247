import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { collectLines, kinds, userLine, watchedCli } from './ws-helpers.ts';

/** Starts `agentpipe serve` on a free port; returns its URL and the watched process. */
async function startServe(args: string[], turns: unknown[]) {
  const dir = tempDir();
  const script = writeScript(dir, turns);
  const cli = watchedCli(['serve', '--port', '0', '--model', 'scripted', '--script', script, '--cwd', dir, ...args]);
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  return { cli, url: url! };
}

/** Connects, sends `prompt` then end_input, and collects every line until the server closes. */
function converse(url: string, prompt: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers });
  const lines: Array<Record<string, any>> = [];
  let pending = '';
  ws.on('open', () => ws.send(userLine(prompt) + '{"type":"end_input"}\n'));
  ws.on('message', (data) => {
    pending += data.toString();
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const line of parts) if (line) lines.push(JSON.parse(line));
  });
  const closed = new Promise<number>((resolve, reject) => {
    ws.on('close', (code) => resolve(code));
    ws.on('error', reject);
  });
  return { ws, lines, closed };
}

test('serve with a token: the right token gets a session, a wrong one 401 before any session', async (t) => {
  const { cli, url } = await startServe(['--token', 's3cret'], [{ text: 'served' }]);
  t.after(() => cli.child.kill('SIGTERM'));

  const bad = new WebSocket(url, { headers: { authorization: 'Bearer wrong' } });
  const status = await new Promise<number | undefined>((resolve) => {
    bad.on('unexpected-response', (_req, res) => resolve(res.statusCode));
    bad.on('open', () => resolve(undefined));
    bad.on('error', () => {});
  });
  assert.equal(status, 401);
  const none = new WebSocket(url);
  none.on('error', () => {});
  const noneStatus = await new Promise<number | undefined>((resolve) =>
    none.on('unexpected-response', (_req, res) => resolve(res.statusCode)),
  );
  assert.equal(noneStatus, 401);
  await cli.waitFor(/refused .*wrong token[\s\S]*refused .*wrong token/);
  assert.doesNotMatch(cli.stderr(), /session/, 'no session was started for a refused client');

  const good = converse(url, 'hello', { authorization: 'Bearer s3cret' });
  assert.equal(await good.closed, 1000);
  assert.deepEqual(kinds(good.lines), ['system/init', 'assistant', 'result']);
  assert.equal(good.lines.at(-1)!.result, 'served');
  assert.match(cli.stderr(), /connection 1 from 127\.0\.0\.1: session [0-9a-f-]{36}/);

  const byQuery = converse(`${url}?token=s3cret`, 'again');
  assert.equal(await byQuery.closed, 1000);
  assert.equal(byQuery.lines.at(-1)!.type, 'result');
});

test('serve refuses --no-token on a non-loopback address', async () => {
  const cli = watchedCli(['serve', '--port', '0', '--host', '0.0.0.0', '--no-token', '--model', 'scripted']);
  assert.equal(await cli.exited, 1);
  assert.match(cli.stderr(), /refusing to serve on 0\.0\.0\.0 without a token/);
});

test('serve: a client that never reads does not stall another; it gets everything once it reads', async (t) => {
  const text = 'abcdefghij'.repeat(400_000);
  const { cli, url } = await startServe(['--include-partial-messages'], [{ text, chunk_size: 4000 }]);
  t.after(() => cli.child.kill('SIGTERM'));

  const stalled = converse(url, 'flood me');
  await new Promise((resolve) => stalled.ws.once('open', resolve));
  stalled.ws.pause();
  await cli.waitFor(/connection 1 from/);

  const started = Date.now();
  const reader = converse(url, 'flood me too');
  assert.equal(await reader.closed, 1000);
  const elapsed = Date.now() - started;
  assert.deepEqual(kinds(reader.lines.filter((m) => m.type !== 'stream_event')), [
    'system/init',
    'system/status',
    'assistant',
    'result',
  ]);
  assert.equal(reader.lines.at(-1)!.result.length, text.length);
  assert.ok(elapsed < 10_000, `the reading client finished in ${elapsed} ms`);
  assert.ok(stalled.lines.length < 5, 'the paused client has read (almost) nothing yet');

  stalled.ws.resume();
  assert.equal(await stalled.closed, 1000);
  const deltas = stalled.lines.filter((m) => m.type === 'stream_event' && m.event.type === 'content_block_delta');
  assert.equal(deltas.map((m) => m.event.delta.text).join(''), text);
  assert.deepEqual(kinds(stalled.lines.filter((m) => m.type !== 'stream_event')), [
    'system/init',
    'system/status',
    'assistant',
    'result',
  ]);
});

test('serve: control requests work over the socket (initialize, unknown subtype)', async (t) => {
  const { cli, url } = await startServe([], [{ text: 'x' }]);
  t.after(() => cli.child.kill('SIGTERM'));
  const ws = new WebSocket(url);
  const lines: Array<Record<string, any>> = [];
  collectLines(ws, lines);
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(
    JSON.stringify({ type: 'control_request', request_id: 'r1', request: { subtype: 'initialize' } }) +
      '\n' +
      JSON.stringify({ type: 'control_request', request_id: 'r2', request: { subtype: 'no_such_thing' } }) +
      '\n{"type":"end_input"}\n',
  );
  await new Promise((resolve) => ws.once('close', resolve));
  const responses = lines.filter((m) => m.type === 'control_response').map((m) => m.response);
  assert.equal(responses[0].subtype, 'success', JSON.stringify(responses[0]));
  assert.equal(responses[0].request_id, 'r1');
  assert.deepEqual(responses[0].response.available_output_styles, ['default']);
  assert.deepEqual(responses[1], {
    subtype: 'error',
    request_id: 'r2',
    error: 'Unsupported control request subtype: no_such_thing',
  });
});
