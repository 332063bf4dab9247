/** MCP over Streamable HTTP and SSE with the real server-everything in its HTTP modes. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { EVERYTHING, freePort, runWithMcp, toolResults } from './helpers.ts';

const children: ChildProcess[] = [];
after(() => children.forEach((c) => c.kill()));

/** Starts server-everything in `mode` on a free port; resolves once it listens. */
async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      text += d;
      if (/port \d+/.test(text)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${text}`)));
  });
  return port;
}

test('a Streamable HTTP server is listed and its tools are called', async () => {
  const port = await startEverything('streamableHttp');
  const { messages } = await runWithMcp(
    { web: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Test': 'yes' } } },
    [
      {
        tool_calls: [
          { name: 'mcp__web__get-sum', input: { a: 1, b: 2 } },
          { name: 'mcp__web__get-tiny-image', input: {} },
        ],
      },
      { text: 'done' },
    ],
  );
  const init = messages.find((m) => m.subtype === 'init')!;
  assert.equal(init.mcp_servers[0].status, 'connected');
  assert.ok(init.tools.includes('mcp__web__echo'));
  const [sum, image] = toolResults(messages);
  assert.deepEqual(sum.content, [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }]);
  assert.ok(image.content.some((b: any) => b.type === 'image' && b.source.media_type === 'image/png'));
  assert.equal(messages.at(-1)!.subtype, 'success');
});

test('an SSE server is listed and its tools are called', async () => {
  const port = await startEverything('sse');
  const { messages } = await runWithMcp({ legacy: { type: 'sse', url: `http://127.0.0.1:${port}/sse` } }, [
    { tool_calls: [{ name: 'mcp__legacy__echo', input: { message: 'over sse' } }] },
    { text: 'done' },
  ]);
  assert.equal(messages.find((m) => m.subtype === 'init')!.mcp_servers[0].status, 'connected');
  assert.deepEqual(toolResults(messages)[0].content, [{ type: 'text', text: 'Echo: over sse' }]);
});

test('an HTTP server that is not there is failed in init and the session goes on', async () => {
  const port = await freePort();
  const { messages, code } = await runWithMcp({ gone: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, [
    { text: 'still here' },
  ]);
  const init = messages.find((m) => m.subtype === 'init')!;
  assert.equal(init.mcp_servers[0].status, 'failed');
  assert.match(init.mcp_servers[0].error, /fetch failed|ECONNREFUSED/);
  assert.equal(code, 0);
  assert.equal(messages.at(-1)!.result, 'still here');
});

test('configured headers are sent to a remote server', async () => {
  const http = await import('node:http');
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(String(req.headers['x-api-key']));
    res.writeHead(401).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => server.close());
  const { port } = server.address() as import('node:net').AddressInfo;
  const { messages } = await runWithMcp(
    { auth: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Api-Key': 'secret-1' } } },
    [{ text: 'ok' }],
  );
  assert.ok(seen.includes('secret-1'), JSON.stringify(seen));
  assert.equal(messages.find((m) => m.subtype === 'init')!.mcp_servers[0].status, 'failed');
});
