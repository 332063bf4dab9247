/** MCP resources through the real CLI: the two resource tools, mcp_read_resource, mcp_call and mcp_status counts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { promptStream, sdkOptions } from '../sdk/helpers.ts';
import { everythingStdio, fixtureServer, runWithMcp, startWithMcp, toolResults } from './helpers.ts';

const withResources = () => fixtureServer({ WITH_RESOURCES: '1' });
const call = (name: string, input: Record<string, unknown>) => ({ tool_calls: [{ name, input }] });

const start = startWithMcp;

test('the resource tools are offered only while a connected server has resources', async () => {
  const toolsOf = async (servers: Record<string, unknown>, extraArgs: string[] = []) => {
    const run = await runWithMcp(servers, [{ text: 'ok' }], { extraArgs });
    assert.equal(run.code, 0, run.stderr);
    return run.messages.find((m) => m.subtype === 'init')!.tools as string[];
  };
  const everything = await toolsOf({ everything: everythingStdio() });
  assert.ok(everything.includes('ListMcpResourcesTool') && everything.includes('ReadMcpResourceTool'));
  const plain = await toolsOf({ t: fixtureServer() });
  assert.ok(plain.includes('mcp__t__add'));
  assert.ok(!plain.includes('ListMcpResourcesTool') && !plain.includes('ReadMcpResourceTool'));
  const denied = await toolsOf({ t: withResources() }, ['--disallowedTools', 'ReadMcpResourceTool']);
  assert.ok(denied.includes('ListMcpResourcesTool') && !denied.includes('ReadMcpResourceTool'));
});

test('the model lists resources and reads text, images and binary items', async () => {
  const run = await runWithMcp({ t: withResources() }, [
    call('ListMcpResourcesTool', {}),
    call('ReadMcpResourceTool', { server: 't', uri: 'test://greeting' }),
    call('ReadMcpResourceTool', { server: 't', uri: 'test://pixel.png' }),
    call('ReadMcpResourceTool', { server: 't', uri: 'test://data.bin' }),
    call('ReadMcpResourceTool', { server: 't', uri: 'test://missing' }),
    call('ReadMcpResourceTool', { server: 'nope', uri: 'test://greeting' }),
    { text: 'read them all' },
  ]);
  assert.equal(run.code, 0, run.stderr);
  const [list, greeting, pixel, data, missing, nope] = toolResults(run.messages);
  const listed = JSON.parse(list!.content);
  assert.deepEqual(
    listed.map((r: any) => [r.server, r.uri, r.mimeType]),
    [
      ['t', 'test://greeting', 'text/plain'],
      ['t', 'test://pixel.png', 'image/png'],
      ['t', 'test://data.bin', 'application/octet-stream'],
    ],
  );
  assert.equal(greeting!.content, 'hello from a resource');
  assert.notEqual(greeting!.is_error, true);
  assert.equal(pixel!.content[0].type, 'image');
  assert.equal(pixel!.content[0].source.media_type, 'image/png');
  assert.match(data!.content, /^\[binary resource test:\/\/data\.bin \(application\/octet-stream\), 8 bytes\]$/);
  assert.equal(missing!.is_error, true);
  assert.match(missing!.content, /test:\/\/missing/);
  assert.equal(nope!.is_error, true);
  assert.match(nope!.content, /no MCP server named "nope"; known: t/);
  assert.equal(run.messages.at(-1)!.result, 'read them all');
});

test('a resource added at runtime shows in the next list; the real everything server reads too', async () => {
  const run = await runWithMcp(
    { t: withResources(), everything: everythingStdio() },
    [
      call('ListMcpResourcesTool', { server: 't' }),
      call('mcp__t__add_resource', { name: 'late' }),
      call('ListMcpResourcesTool', { server: 't' }),
      call('ReadMcpResourceTool', { server: 'everything', uri: 'demo://resource/static/document/architecture.md' }),
      { text: 'done' },
    ],
    { extraArgs: ['--allowedTools', 'mcp__t__add_resource'] },
  );
  assert.equal(run.code, 0, run.stderr);
  const [before, , after, doc] = toolResults(run.messages);
  assert.equal(JSON.parse(before!.content).length, 3);
  assert.ok(JSON.parse(after!.content).some((r: any) => r.uri === 'test://late'));
  assert.match(doc!.content, /^# Everything Server/);
});

test("mcp_read_resource answers the server's contents; bad requests get clear errors", async () => {
  const cli = start({ t: withResources(), plain: fixtureServer() });
  const { contents } = await cli.control({ subtype: 'mcp_read_resource', serverName: 't', uri: 'test://greeting' });
  assert.deepEqual(contents, [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'hello from a resource' }]);
  const image = await cli.control({ subtype: 'mcp_read_resource', serverName: 't', uri: 'test://pixel.png' });
  assert.equal(image.contents[0].mimeType, 'image/png');
  assert.ok(image.contents[0].blob.length > 20);
  await assert.rejects(
    cli.control({ subtype: 'mcp_read_resource', serverName: 'nope', uri: 'x' }),
    /no MCP server named "nope"/,
  );
  await assert.rejects(
    cli.control({ subtype: 'mcp_read_resource', serverName: 't' }),
    /mcp_read_resource: uri must be a non-empty string/,
  );
  await assert.rejects(
    cli.control({ subtype: 'mcp_read_resource', serverName: 'plain', uri: 'test://greeting' }),
    /MCP server "plain" offers no resources/,
  );
  await assert.rejects(
    cli.control({ subtype: 'mcp_read_resource', serverName: 't', uri: 'test://missing' }),
    /test:\/\/missing/,
  );
  await cli.end();
});

test('mcp_call calls a tool by its mcp__ name or by server and tool, and returns the CallToolResult', async () => {
  const cli = start({ t: fixtureServer() });
  assert.deepEqual(await cli.control({ subtype: 'mcp_call', tool: 'mcp__t__add', arguments: { a: 1, b: 2 } }), {
    content: [{ type: 'text', text: '3' }],
  });
  assert.deepEqual(
    await cli.control({ subtype: 'mcp_call', serverName: 't', tool: 'add', arguments: { a: 40, b: 2 } }),
    { content: [{ type: 'text', text: '42' }] },
  );
  assert.deepEqual(await cli.control({ subtype: 'mcp_call', tool: 'mcp__t__fail' }), {
    content: [{ type: 'text', text: 'it broke' }],
    isError: true,
  });
  await assert.rejects(
    cli.control({ subtype: 'mcp_call', tool: 'mcp__zz__add' }),
    /mcp_call: no MCP server for tool "mcp__zz__add"/,
  );
  await assert.rejects(
    cli.control({ subtype: 'mcp_call', tool: 'mcp__t__add', arguments: [1] }),
    /mcp_call: arguments must be an object/,
  );
  await assert.rejects(cli.control({ subtype: 'mcp_call' }), /mcp_call: tool must be a string/);
  await cli.control({ subtype: 'mcp_toggle', serverName: 't', enabled: false });
  await assert.rejects(
    cli.control({ subtype: 'mcp_call', tool: 'mcp__t__add', arguments: { a: 1, b: 2 } }),
    /MCP server "t" is disabled/,
  );
  await cli.end();
});

test("mcp_status counts each server's resources", async () => {
  const cli = start({ t: withResources(), plain: fixtureServer() });
  const { mcpServers } = await cli.control({ subtype: 'mcp_status' });
  const byName = Object.fromEntries(mcpServers.map((s: any) => [s.name, s]));
  assert.equal(byName.t.resources, 3);
  assert.equal(byName.plain.status, 'connected');
  assert.equal(byName.plain.resources, undefined);
  await cli.end();
});

test('the official SDK reads a resource with readMcpResource()', async () => {
  const options = sdkOptions([], {
    mcpServers: { t: { type: 'stdio', ...withResources() } },
    mcpServersDelivery: 'argv',
  });
  const prompts = promptStream();
  const q = query({ prompt: prompts, options });
  const read = await q.readMcpResource('t', 'test://greeting');
  prompts.end();
  for await (const _ of q) {
    /* drain */
  }
  assert.deepEqual(read.contents, [{ uri: 'test://greeting', mimeType: 'text/plain', text: 'hello from a resource' }]);
});
