import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createSdkMcpServer, query, tool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, sdkOptions, textOf } from './helpers.ts';

test('a tool of an SDK MCP server (createSdkMcpServer + tool) is listed and called by the model', async () => {
  const calls: Array<{ a: number; b: number }> = [];
  const calc = createSdkMcpServer({
    name: 'calc',
    version: '1.0.0',
    tools: [
      tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async (args) => {
        calls.push(args);
        return { content: [{ type: 'text', text: String(args.a + args.b) }] };
      }),
    ],
  });
  const options = sdkOptions([
    { tool_calls: [{ name: 'mcp__calc__add', id: 'toolu_add', input: { a: 2, b: 3 } }] },
    { text: 'the sum is 5' },
  ], { mcpServers: { calc }, allowedTools: ['mcp__calc__add'] });
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'add 2 and 3', options })) messages.push(message);

  assert.deepEqual(calls, [{ a: 2, b: 3 }]);
  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'user', 'assistant', 'result']);
  const init = messages[0]!;
  assert.ok(init.type === 'system' && init.subtype === 'init');
  assert.ok(init.tools.includes('mcp__calc__add'), init.tools.join(','));
  assert.deepEqual(init.mcp_servers.map((s) => [s.name, s.status]), [['calc', 'connected']]);
  const toolResult = messages[2]!;
  assert.equal(textOf(toolResult), '5');
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success' && result.result === 'the sum is 5');
});
