/**
 * Depth and size limits on the JSON a client sends (issue 27): hostile lines (10,000 deep in every
 * place JSON can go, 100,000 wide, over the size limit, broken) through stdin stream-json,
 * `serve`, `serve --ui`, `--sdk-url`, `agentpipe acp` and `agentpipe app-server` (stdio and
 * `--listen ws://`). Every refused user message ends in an error result, every refused request in
 * an error response with its id, and the server answers the next client as before. (`serve
 * --redis`: test/cluster/input-limits.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import WebSocket, { WebSocketServer } from 'ws';
import { CLI_PATH, parseLines, runCli } from '../helpers/cli.ts';
import { deepValue, hostileCases, unmetDebts, wideObject } from '../helpers/hostile-json.ts';
import { AppServerClient } from '../codex/app-server-client.ts';
import { codexDirs, sdkEnv, wsAppServer } from '../codex/helpers.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { userLine, watchedCli } from '../transport/ws-helpers.ts';

const MAX_LINE = 2_000_000;
const LIMITS = { AGENTPIPE_MAX_INPUT_LINE: String(MAX_LINE) };
const STREAM = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];
const cases = hostileCases(MAX_LINE);
/** What fits in one WebSocket frame (the server's max payload is the line limit). */
const framed = cases.filter((c) => c.line.length < MAX_LINE);
const turns = [{ text: 'wide ok' }, { text: 'fine' }];

test('stdin stream-json: every hostile line is refused or answered, each client is owed one answer, the good prompt runs', async () => {
  const dir = tempDir();
  const script = writeScript(dir, turns);
  const stdin = [...cases.map((c) => c.line), userLine('good').trim()].join('\n') + '\n';
  const run = await runCli([...STREAM, '--model', 'scripted', '--script', script, '--cwd', dir], {
    stdin,
    env: LIMITS,
    timeoutMs: 60_000,
  });
  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  assert.deepEqual(unmetDebts(cases, lines), []);
  assert.equal(lines.filter((l) => l.type === 'result').at(-1)!.result, 'fine');
  assert.match(run.stderr, /JSON nested deeper than 200 levels \(AGENTPIPE_MAX_INPUT_DEPTH\)/);
  assert.doesNotMatch(run.stderr, /RangeError|\n\s+at /);
});

test('stdin: a can_use_tool answer nested too deep fails that request at once: the tool is denied, the prompt ends', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [
    { tool_calls: [{ name: 'Bash', id: 'toolu_ask', input: { command: 'touch made' } }] },
    { text: 'after the denial' },
  ]);
  const child = spawn(
    process.execPath,
    [CLI_PATH, ...STREAM, '--model', 'scripted', '--script', script, '--permission-prompt-tool', 'stdio'],
    { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ANTHROPIC_API_KEY: '' } },
  );
  const lines: Array<Record<string, any>> = [];
  let buffer = '';
  const asked = new Promise<string>((resolve) =>
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
        const line = JSON.parse(buffer.slice(0, at)) as Record<string, any>;
        buffer = buffer.slice(at + 1);
        lines.push(line);
        if (line.type === 'control_request' && line.request.subtype === 'can_use_tool') resolve(line.request_id);
        if (line.type === 'result') child.stdin.end();
      }
    }),
  );
  child.stdin.write(userLine('run it'));
  const id = await asked;
  child.stdin.write(
    `{"type":"control_response","response":{"subtype":"success","request_id":"${id}",` +
      `"response":{"behavior":"allow","updatedInput":${deepValue(10_000)}}}}\n`,
  );
  await new Promise((resolve) => child.on('close', resolve));
  const result = lines.find((l) => l.type === 'result')!;
  assert.equal(result.result, 'after the denial');
  assert.deepEqual(
    result.permission_denials.map((d: Record<string, any>) => d.tool_use_id),
    ['toolu_ask'],
  );
});

/** Starts `agentpipe serve` (loopback, no token) with the limits; its URL. */
async function startServe(args: string[]) {
  const dir = tempDir();
  const script = writeScript(dir, turns);
  const cli = watchedCli(
    ['serve', '--port', '0', '--no-token', '--model', 'scripted', '--script', script, '--cwd', dir, ...args],
    LIMITS,
  );
  const [, url] = await cli.waitFor(/listening on (ws:\/\/\S+)/);
  return { cli, url: url! };
}

/** Sends `frames` on a new connection, then end_input; resolves with every line and the close code. */
async function converse(url: string, frames: string[]): Promise<{ lines: Array<Record<string, any>>; code: number }> {
  const ws = new WebSocket(url);
  const lines: Array<Record<string, any>> = [];
  let pending = '';
  ws.on('message', (data) => {
    pending += data.toString();
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const line of parts) if (line) lines.push(JSON.parse(line));
  });
  ws.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve) => ws.on('open', resolve));
  for (const frame of frames) ws.send(frame);
  ws.send('{"type":"end_input"}\n');
  const code = await closed;
  return { lines: lines.filter((l) => l.type !== 'keep_alive'), code };
}

for (const variant of [[], ['--ui']]) {
  test(`${['serve', ...variant].join(' ')}: hostile frames are refused or answered on the connection; a frame over the limit closes only its own connection (1009)`, async (t) => {
    const { cli, url } = await startServe(variant);
    t.after(() => cli.child.kill('SIGTERM'));
    const first = await converse(url, [...framed.map((c) => `${c.line}\n`), userLine('good')]);
    assert.equal(first.code, 1000);
    assert.deepEqual(unmetDebts(framed, first.lines), []);

    const huge = await converse(url, [userLine('x'.repeat(MAX_LINE + 1))]);
    assert.equal(huge.code, 1009, 'Message Too Big');
    const after = await converse(url, [userLine('plain'), userLine('good')]);
    assert.equal(after.code, 1000);
    assert.deepEqual(
      after.lines.filter((l) => l.type === 'result').map((l) => l.result),
      ['wide ok', 'fine'],
      'the server lives on',
    );
    assert.equal(cli.child.exitCode, null);
    assert.doesNotMatch(cli.stderr(), /RangeError|internal error/);
  });
}

test('--sdk-url: hostile lines from the client are refused or answered; the session goes on', async (t) => {
  const dir = tempDir();
  const script = writeScript(dir, turns);
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  t.after(() => wss.close());
  await new Promise((resolve) => wss.once('listening', resolve));
  const lines: Array<Record<string, any>> = [];
  wss.on('connection', (ws) => {
    for (const c of framed) ws.send(`${c.line}\n`);
    ws.send(userLine('good') + '{"type":"end_input"}\n');
    ws.on('message', (data) => {
      for (const line of data.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    });
  });
  const port = (wss.address() as { port: number }).port;
  const cli = watchedCli(
    ['--sdk-url', `ws://127.0.0.1:${port}/s`, '--model', 'scripted', '--script', script, '--cwd', dir],
    LIMITS,
  );
  assert.equal(await cli.exited, 0, cli.stderr());
  assert.deepEqual(
    unmetDebts(
      framed,
      lines.filter((l) => l.type !== 'keep_alive'),
    ),
    [],
  );
});

test('acp: a request nested too deep, one over the size limit and a broken one get JSON-RPC errors with their ids; the agent goes on', async () => {
  const child = spawn(process.execPath, [CLI_PATH, 'acp', '--model', 'scripted'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ANTHROPIC_API_KEY: '', AGENTPIPE_MAX_INPUT_LINE: '100000' },
  });
  const replies: Array<Record<string, any>> = [];
  let buffer = '';
  let want = 0;
  let wake: () => void = () => undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
      replies.push(JSON.parse(buffer.slice(0, at)) as Record<string, any>);
      buffer = buffer.slice(at + 1);
    }
    if (replies.length >= want) wake();
  });
  const send = async (lines: string[], count: number) => {
    want = replies.length + count;
    const got = new Promise<void>((resolve) => (wake = resolve));
    child.stdin.write(lines.map((l) => `${l}\n`).join(''));
    await got;
  };
  const cwd = tempDir();
  await send([`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`], 1);
  await send(
    [
      `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":${JSON.stringify(cwd)},"mcpServers":[],` +
        `"x":${deepValue(10_000)}}}`,
      `{"jsonrpc":"2.0","id":"big","method":"session/new","params":{"cwd":"${'a'.repeat(200_000)}"}}`,
      `{"jsonrpc":"2.0","id":4,"method":"session/new","params":{`,
      `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":${JSON.stringify(cwd)},"mcpServers":[]}}`,
    ],
    4,
  );
  child.stdin.end();
  await new Promise((resolve) => child.on('close', resolve));
  const byId = new Map(replies.map((r) => [r.id, r]));
  assert.match(byId.get(2)?.error?.message ?? '', /nested deeper than 200 levels/);
  assert.equal(byId.get(2)?.error?.code, -32600);
  assert.match(byId.get('big')?.error?.message ?? '', /over the limit of 100000/);
  assert.equal(byId.get(4)?.error?.code, -32700, 'a broken line: a parse error, with the id its start names');
  assert.match(byId.get(5)?.result?.sessionId ?? '', /^[0-9a-f-]{36}$/, 'the agent goes on');
});

/**
 * The app-server's hostile requests (JSON-RPC: each request is owed a response with its id): values 10,000 deep in
 * a request's params, in a turn's input and as a whole line; a wide one; a line over the size limit (on stdio:
 * refused with its id; a WebSocket frame over it closes its connection, below); a broken one. Then a turn runs.
 */
async function appServerHostile(client: AppServerClient, cwd: string, overLimit: boolean): Promise<void> {
  await client.initialize();
  const deep = deepValue(10_000);
  const [deepStart, wide, huge, deepTurn] = client.reserveIds([
    'thread/start',
    'model/list',
    'thread/start',
    'turn/start',
  ]);
  const answered = (id: number) => client.waitFor((f) => f.id === id && f.method === undefined);
  const lines = [
    `{"id":${deepStart},"method":"thread/start","params":{"cwd":${JSON.stringify(cwd)},"x":${deep}}}`,
    `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    `{"id":${wide},"method":"model/list","params":${wideObject(100_000)}}`,
    `{"id":"broken","method":"thread/start","params":{`,
    ...(overLimit ? [`{"id":${huge},"method":"thread/start","params":{"cwd":"${'a'.repeat(MAX_LINE)}"}}`] : []),
  ];
  client.raw(lines.map((l) => `${l}\n`).join(''));
  const refused = await answered(deepStart!);
  assert.equal(refused.error?.code, -32600);
  assert.match(refused.error?.message ?? '', /nested deeper than 200 levels/);
  const wideAnswer = await answered(wide!);
  assert.ok('result' in wideAnswer || 'error' in wideAnswer, 'a wide request is answered');
  if (overLimit) assert.match((await answered(huge!)).error?.message ?? '', /over the limit of 2000000/);
  const thread = await client.request('thread/start', { cwd });
  const threadId = thread.result.thread.id as string;
  client.raw(
    `{"id":${deepTurn},"method":"turn/start","params":{"threadId":"${threadId}","input":` +
      `[{"type":"text","text":"hi","text_elements":[],"x":${deep}}]}}\n`,
  );
  assert.match((await answered(deepTurn!)).error?.message ?? '', /nested deeper than 200 levels/);
  const turn = await client.request('turn/start', {
    threadId,
    input: [{ type: 'text', text: 'good', text_elements: [] }],
  });
  assert.equal((await client.turnCompleted(turn.result.turn.id)).params.turn.status, 'completed', 'the server goes on');
  assert.doesNotMatch(client.stderr, /RangeError|\n\s+at /);
}

/** A scripted model for the app-server tests: one answer a turn. */
function appServerDirs() {
  const dir = codexDirs('limits');
  const script = writeScript(dir.home, [{ text: 'fine' }, { text: 'fine' }]);
  return { ...dir, args: ['--model', 'scripted', '--script', script], env: sdkEnv(dir.home, LIMITS) };
}

test('app-server on stdio: deep, wide, huge and broken requests are refused with their ids or answered; a turn runs', async () => {
  const dir = appServerDirs();
  const client = AppServerClient.stdio({ args: dir.args, cwd: dir.cwd, env: dir.env, validate: false });
  try {
    await appServerHostile(client, dir.cwd, true);
  } finally {
    await client.close();
  }
});

test('app-server --listen ws://: the same on a connection; a frame over the limit closes only its own (1009)', async (t) => {
  const dir = appServerDirs();
  const server = await wsAppServer(dir, dir.args.slice(2), LIMITS);
  t.after(() => server.stop());
  const url = server.url;
  const huge = new WebSocket(url);
  await new Promise((resolve) => huge.once('open', resolve));
  const code = new Promise<number>((resolve) => huge.once('close', (c) => resolve(c)));
  huge.on('error', () => undefined);
  huge.send(`{"id":1,"method":"initialize","params":{"x":"${'z'.repeat(MAX_LINE + 1)}"}}`);
  assert.equal(await code, 1009, 'Message Too Big');
  const client = await AppServerClient.ws(url, {}, false);
  try {
    await appServerHostile(client, dir.cwd, false);
  } finally {
    await client.close();
  }
  assert.ok(server.alive());
  assert.doesNotMatch(server.stderr(), /RangeError|\n\s+at /);
});
