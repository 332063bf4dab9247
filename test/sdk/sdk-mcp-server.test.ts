import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createSdkMcpServer, query, tool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { kinds, promptStream, sdkOptions, textOf } from './helpers.ts';

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
  const options = sdkOptions(
    [{ tool_calls: [{ name: 'mcp__calc__add', id: 'toolu_add', input: { a: 2, b: 3 } }] }, { text: 'the sum is 5' }],
    { mcpServers: { calc }, allowedTools: ['mcp__calc__add'] },
  );
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt: 'add 2 and 3', options })) messages.push(message);

  assert.deepEqual(calls, [{ a: 2, b: 3 }]);
  assert.deepEqual(kinds(messages), ['system/init', 'assistant', 'user', 'assistant', 'result']);
  const init = messages[0]!;
  assert.ok(init.type === 'system' && init.subtype === 'init');
  assert.ok(init.tools.includes('mcp__calc__add'), init.tools.join(','));
  assert.deepEqual(
    init.mcp_servers.map((s) => [s.name, s.status]),
    [['calc', 'connected']],
  );
  const toolResult = messages[2]!;
  assert.equal(textOf(toolResult), '5');
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success' && result.result === 'the sum is 5');
});

test('a tool the SDK MCP server adds later reaches the model: its tools/list_changed comes in as an inbound mcp_message', async () => {
  const calc = createSdkMcpServer({
    name: 'calc',
    version: '1.0.0',
    tools: [
      tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async (args) => ({
        content: [{ type: 'text', text: String(args.a + args.b) }],
      })),
    ],
  });
  const options = sdkOptions([{ text: 'one' }, { text: 'two' }], { mcpServers: { calc } });
  const prompts = promptStream();
  prompts.push('first');
  const q = query({ prompt: prompts, options });
  const inits: string[][] = [];
  for await (const message of q) {
    if (message.type === 'system' && message.subtype === 'init')
      inits.push(message.tools.filter((t) => t.startsWith('mcp__')));
    if (message.type !== 'result') continue;
    if (inits.length === 2) {
      prompts.end();
      continue;
    }
    // The server announces the new tool itself (notifications/tools/list_changed); agentpipe then lists the tools
    // again.
    calc.instance.registerTool(
      'mul',
      { description: 'Multiplies', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a * b) }] }),
    );
    const status = await until(async () =>
      (await q.mcpServerStatus()).find((s) => s.name === 'calc')?.tools?.some((t) => t.name === 'mul'),
    );
    assert.ok(status, `the new tool is listed; stderr: ${options.stderrText()}`);
    prompts.push('second');
  }
  assert.deepEqual(inits, [['mcp__calc__add'], ['mcp__calc__add', 'mcp__calc__mul']]);
});

/** Polls `check` (a control round trip each time) until it is true; false after 100 tries. */
async function until(check: () => Promise<boolean | undefined>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}
