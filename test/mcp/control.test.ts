/** MCP control requests through the real CLI: mcp_status, mcp_toggle, mcp_reconnect, mcp_set_servers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { everythingStdio, fixtureServer, startWithMcp } from './helpers.ts';

const ok = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `ok ${i + 1}` }));

const start = startWithMcp;

test('mcp_status answers with each server, its status, server info and tools', async () => {
  const cli = start({ everything: everythingStdio(), missing: { command: '/nonexistent' } }, ok(1));
  const { mcpServers } = await cli.control({ subtype: 'mcp_status' });
  const everything = mcpServers.find((s: any) => s.name === 'everything');
  assert.equal(everything.status, 'connected');
  assert.equal(everything.serverInfo.name, 'mcp-servers/everything');
  const echo = everything.tools.find((t: any) => t.name === 'echo');
  assert.equal(echo.annotations.readOnly, true);
  const missing = mcpServers.find((s: any) => s.name === 'missing');
  assert.equal(missing.status, 'failed');
  assert.match(missing.error, /ENOENT/);
  await cli.end();
});

test('mcp_toggle disables a server (its tools leave the next init) and enables it again', async () => {
  const cli = start({ t: fixtureServer() }, ok(3));
  cli.prompt('one');
  await cli.waitFor((m) => m.type === 'result');
  await cli.control({ subtype: 'mcp_toggle', serverName: 't', enabled: false });
  const disabled = await cli.waitFor((m) => m.subtype === 'mcp_server_status' && m.status === 'disabled');
  assert.equal(disabled.server_name, 't');
  const mark = cli.lines.length;
  cli.prompt('two');
  const init2 = await cli.waitFor((m) => m.subtype === 'init', mark);
  assert.equal(init2.mcp_servers[0].status, 'disabled');
  assert.ok(!init2.tools.includes('mcp__t__add'));
  await cli.waitFor((m) => m.type === 'result', mark);
  await cli.control({ subtype: 'mcp_toggle', serverName: 't', enabled: true });
  const mark3 = cli.lines.length;
  cli.prompt('three');
  const init3 = await cli.waitFor((m) => m.subtype === 'init', mark3);
  assert.equal(init3.mcp_servers[0].status, 'connected');
  assert.ok(init3.tools.includes('mcp__t__add'));
  await cli.end();
});

test('mcp_reconnect brings a crashed server back', async () => {
  const cli = start({ t: fixtureServer() }, [
    { tool_calls: [{ name: 'mcp__t__crash', input: {} }] },
    { text: 'crashed' },
    { tool_calls: [{ name: 'mcp__t__add', input: { a: 20, b: 22 } }] },
    { text: 'back' },
  ]);
  cli.prompt('crash it');
  await cli.waitFor((m) => m.type === 'result');
  await cli.control({ subtype: 'mcp_reconnect', serverName: 't' });
  const back = await cli.waitFor((m) => m.subtype === 'mcp_server_status' && m.status === 'connected');
  assert.ok(back.tools.includes('add'));
  const mark = cli.lines.length;
  cli.prompt('use it');
  const result = await cli.waitFor((m) => m.type === 'user' && m.message.content[0]?.type === 'tool_result', mark);
  assert.deepEqual(result.message.content[0].content, [{ type: 'text', text: '42' }]);
  await assert.rejects(cli.control({ subtype: 'mcp_reconnect', serverName: 'nope' }), /no MCP server named "nope"/);
  await cli.end();
});

test('mcp_set_servers adds and removes runtime servers and reports connection errors', async () => {
  const cli = start({ t: fixtureServer() }, ok(2));
  const added = await cli.control({
    subtype: 'mcp_set_servers',
    servers: { extra: everythingStdio(), bad: { command: '/nonexistent' } },
  });
  assert.deepEqual(added.added.sort(), ['bad', 'extra']);
  assert.match(added.errors.bad, /ENOENT/);
  cli.prompt('one');
  const init = await cli.waitFor((m) => m.subtype === 'init');
  assert.deepEqual(
    init.mcp_servers.map((s: any) => s.name),
    ['t', 'extra', 'bad'],
  );
  assert.ok(init.tools.includes('mcp__extra__echo') && init.tools.includes('mcp__t__add'));
  await cli.waitFor((m) => m.type === 'result');
  const removed = await cli.control({ subtype: 'mcp_set_servers', servers: {} });
  assert.deepEqual(removed.removed.sort(), ['bad', 'extra']);
  const mark = cli.lines.length;
  cli.prompt('two');
  const init2 = await cli.waitFor((m) => m.subtype === 'init', mark);
  assert.deepEqual(
    init2.mcp_servers.map((s: any) => s.name),
    ['t'],
  );
  assert.ok(!init2.tools.some((t: string) => t.startsWith('mcp__extra__')));
  await cli.end();
});
