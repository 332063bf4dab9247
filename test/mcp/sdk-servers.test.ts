/**
 * The official SDK's in-process servers: `initialize.sdkMcpServers` names them, and the CLI
 * reaches them through `mcp_message` control requests. Here the test is that client, with a
 * real McpServer behind an in-memory transport.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { CliDriver } from './driver.ts';

/** A real MCP server the test hosts; `answer` relays one mcp_message to it. */
async function inProcessServer() {
  const server = new McpServer({ name: 'in-process', version: '1.0.0' });
  server.registerTool(
    'greet',
    { description: 'Greets someone', inputSchema: { name: z.string() }, annotations: { readOnlyHint: true } },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const waiting = new Map<unknown, (m: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => waiting.get((message as { id?: unknown }).id)?.(message);
  await clientSide.start();
  const methods: string[] = [];
  const answer = async (request: Record<string, any>): Promise<Record<string, unknown>> => {
    assert.equal(request.subtype, 'mcp_message');
    assert.equal(request.server_name, 'tools');
    const message = request.message;
    methods.push(message.method);
    if (message.id === undefined) {
      await clientSide.send(message);
      return { mcp_response: { jsonrpc: '2.0', result: {}, id: 0 } };
    }
    const response = new Promise<JSONRPCMessage>((resolve) => waiting.set(message.id, resolve));
    await clientSide.send(message);
    return { mcp_response: await response };
  };
  return { answer, methods };
}

test('sdkMcpServers are connected over mcp_message: listed in init and called', async () => {
  const { answer, methods } = await inProcessServer();
  const script = writeScript(tempDir(), [
    { tool_calls: [{ name: 'mcp__tools__greet', input: { name: 'Ada' } }] },
    { text: 'greeted' },
  ]);
  // Its readOnlyHint is the server's claim: an allow rule lets it run (tools/permissions.ts).
  const cli = new CliDriver(['--model', 'scripted', '--script', script, '--allowedTools', 'mcp__tools']);
  cli.onRequest = answer;
  await cli.control({ subtype: 'initialize', sdkMcpServers: ['tools'] });
  cli.prompt('greet Ada');
  const init = await cli.waitFor((m) => m.subtype === 'init');
  assert.deepEqual(init.mcp_servers, [{ name: 'tools', status: 'connected', source: 'sdk' }]);
  assert.ok(init.tools.includes('mcp__tools__greet'));
  assert.ok(init.tools.includes('mcp__tools__greet'));
  const result = await cli.waitFor((m) => m.type === 'user' && m.message.content[0]?.type === 'tool_result');
  assert.deepEqual(result.message.content[0].content, [{ type: 'text', text: 'Hello, Ada!' }]);
  assert.equal((await cli.waitFor((m) => m.type === 'result')).result, 'greeted');
  assert.deepEqual(methods, ['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
  await cli.end();
});

test('an sdk server whose client answers with an error is failed, and the session goes on', async () => {
  const script = writeScript(tempDir(), [{ text: 'fine' }]);
  const cli = new CliDriver(['--model', 'scripted', '--script', script]);
  // The client answers every mcp_message with an error response.
  const answered = setInterval(() => {
    for (const line of cli.lines) {
      if (line.type === 'control_request' && !line.answered) {
        line.answered = true;
        cli.send({
          type: 'control_response',
          response: { subtype: 'error', request_id: line.request_id, error: 'Unknown SDK MCP server: gone' },
        });
      }
    }
  }, 10);
  await cli.control({ subtype: 'initialize', sdkMcpServers: ['gone'] });
  cli.prompt('hi');
  const init = await cli.waitFor((m) => m.subtype === 'init');
  assert.equal(init.mcp_servers[0].status, 'failed');
  assert.match(init.mcp_servers[0].error, /Unknown SDK MCP server: gone/);
  assert.equal((await cli.waitFor((m) => m.type === 'result')).result, 'fine');
  clearInterval(answered);
  await cli.end();
});
