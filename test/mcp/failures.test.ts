/** MCP servers that fail: at start, mid-session (crash), or too slowly (timeout). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureServer, runWithMcp, toolResults } from './helpers.ts';

test('a server that fails to start is failed in init with its error; the session goes on', async () => {
  const { messages, code } = await runWithMcp(
    {
      missing: { command: '/nonexistent/mcp-server' },
      broken: fixtureServer({ FAIL_AT_START: '1' }),
      ok: fixtureServer(),
    },
    [{ tool_calls: [{ name: 'mcp__ok__add', input: { a: 2, b: 2 } }] }, { text: 'fine' }],
  );
  const init = messages.find((m) => m.subtype === 'init')!;
  const byName = Object.fromEntries(init.mcp_servers.map((s: any) => [s.name, s]));
  assert.equal(byName.missing.status, 'failed');
  assert.match(byName.missing.error, /ENOENT/);
  assert.equal(byName.broken.status, 'failed');
  assert.match(byName.broken.error, /cannot start: missing config/);
  assert.equal(byName.ok.status, 'connected');
  assert.ok(!init.tools.some((t: string) => t.startsWith('mcp__broken__')));
  assert.deepEqual(toolResults(messages)[0].content, [{ type: 'text', text: '4' }]);
  assert.equal(code, 0);
  assert.equal(messages.at(-1)!.result, 'fine');
});

test('a server that crashes mid-call: is_error results naming it, a status message, the session goes on', async () => {
  const { messages } = await runWithMcp(
    { t: fixtureServer() },
    [
      { tool_calls: [{ name: 'mcp__t__crash', input: {} }] },
      { tool_calls: [{ name: 'mcp__t__add', input: { a: 1, b: 1 } }] },
      { text: 'carried on' },
    ],
    { extraArgs: ['--permission-mode', 'bypassPermissions'] },
  );
  const [crash, after] = toolResults(messages);
  assert.equal(crash.is_error, true);
  assert.match(crash.content, /MCP server "t" closed the connection during the call to crash/);
  assert.equal(after.is_error, true);
  assert.match(after.content, /MCP server "t" is not connected/);
  const status = messages.find((m) => m.type === 'system' && m.subtype === 'mcp_server_status')!;
  assert.equal(status.server_name, 't');
  assert.equal(status.status, 'failed');
  assert.match(status.error, /about to crash/);
  const crashResultAt = messages.findIndex(
    (m) => m.type === 'user' && m.message.content[0]?.tool_use_id === crash.tool_use_id,
  );
  assert.ok(messages.indexOf(status) < crashResultAt, 'the crash is announced before the failed call returns');
  assert.equal(messages.at(-1)!.result, 'carried on');
});

test('a call that outlives MCP_TOOL_TIMEOUT fails as a timeout; the server stays usable', async () => {
  const started = Date.now();
  const { messages } = await runWithMcp(
    { t: fixtureServer() },
    [
      {
        tool_calls: [
          { name: 'mcp__t__sleep', id: 'toolu_slow', input: { ms: 20_000 } },
          { name: 'mcp__t__add', id: 'toolu_fast', input: { a: 5, b: 6 } },
        ],
      },
      { text: 'ok' },
    ],
    { env: { MCP_TOOL_TIMEOUT: '400' } },
  );
  // Read-only calls run together: the fast one is answered first.
  const [fast, slow] = toolResults(messages);
  assert.deepEqual([fast.tool_use_id, slow.tool_use_id], ['toolu_fast', 'toolu_slow']);
  assert.equal(slow.is_error, true);
  assert.equal(slow.content, 'MCP tool sleep of server "t" timed out after 400 ms');
  assert.deepEqual(fast.content, [{ type: 'text', text: '11' }]);
  assert.ok(Date.now() - started < 15_000);
});

test('a server slower to start than MCP_TIMEOUT is failed with a timeout', async () => {
  const { messages } = await runWithMcp(
    {
      slow: { command: process.execPath, args: ['-e', 'setTimeout(() => {}, 30000)'] },
    },
    [{ text: 'ok' }],
    { env: { MCP_TIMEOUT: '500' } },
  );
  const init = messages.find((m) => m.subtype === 'init')!;
  assert.equal(init.mcp_servers[0].status, 'failed');
  assert.match(init.mcp_servers[0].error, /timed out after 500 ms/);
  assert.ok(messages.at(-1)!.duration_ms < 2000, 'a failed server does not hold the prompt up beyond its timeout');
  assert.equal(messages.at(-1)!.subtype, 'success');
});

test('a bad --mcp-config is a usage error, not a stack trace', async () => {
  const { runCli } = await import('../helpers/cli.ts');
  const bad = await runCli(['-p', 'hi', '--model', 'scripted', '--mcp-config', '{"mcpServers":{"x":{"type":"ftp"}}}']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /MCP server "x": unsupported type "ftp"/);
  const missing = await runCli(['-p', 'hi', '--model', 'scripted', '--mcp-config', 'no-such-file.json']);
  assert.match(missing.stderr, /--mcp-config no-such-file.json: no such file/);
  assert.equal(missing.stdout, '');
});
