/** MCP over stdio with the real @modelcontextprotocol/server-everything, through the real CLI. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { everythingStdio, runWithMcp, toolResults } from './helpers.ts';

test('init lists the stdio server as connected (source dynamic, as --mcp-config in Claude Code), its tools named mcp__<server>__<tool>', async () => {
  const { messages, code } = await runWithMcp({ everything: everythingStdio() }, [{ text: 'ok' }]);
  assert.equal(code, 0);
  const init = messages.find((m) => m.subtype === 'init')!;
  const server = init.mcp_servers.find((s: any) => s.name === 'everything');
  assert.deepEqual(server, { name: 'everything', status: 'connected', source: 'dynamic' });
  assert.ok(init.tools.includes('mcp__everything__echo'));
  assert.ok(init.tools.includes('mcp__everything__get-tiny-image'));
  assert.equal(messages.at(-1)!.subtype, 'success');
});

test('MCP tools are called with their arguments and answer with their text blocks', async () => {
  const { messages } = await runWithMcp({ everything: everythingStdio() }, [
    {
      tool_calls: [
        { name: 'mcp__everything__echo', input: { message: 'hello pipes' } },
        { name: 'mcp__everything__get-sum', input: { a: 19, b: 23 } },
      ],
    },
    { text: 'done' },
  ]);
  const [echo, sum] = toolResults(messages);
  assert.notEqual(echo.is_error, true);
  assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hello pipes' }]);
  assert.deepEqual(sum.content, [{ type: 'text', text: 'The sum of 19 and 23 is 42.' }]);
  assert.deepEqual(sum.tool_use_result, [{ type: 'text', text: 'The sum of 19 and 23 is 42.' }]);
  // Each call's assistant message names it as Claude Code 2.1.332 does (tool_use_meta), the server by its own name.
  const metas = messages.filter((m) => m.type === 'assistant' && m.tool_use_meta).map((m) => m.tool_use_meta);
  assert.deepEqual(
    metas.map(([meta]: any[]) => ({ ...meta, id: typeof meta.id })),
    [
      { id: 'string', display_name: 'Echo', tool_name: 'echo', server_display_name: 'mcp-servers/everything' },
      { id: 'string', display_name: 'Get-sum', tool_name: 'get-sum', server_display_name: 'mcp-servers/everything' },
    ],
  );
  assert.equal(messages.at(-1)!.result, 'done');
});

test('an MCP image result reaches the model as a base64 image block', async () => {
  const { messages } = await runWithMcp({ everything: everythingStdio() }, [
    { tool_calls: [{ name: 'mcp__everything__get-tiny-image', input: {} }] },
    { text: 'seen' },
  ]);
  const [result] = toolResults(messages);
  assert.ok(Array.isArray(result.content));
  const image = result.content.find((b: any) => b.type === 'image');
  assert.equal(image.source.type, 'base64');
  assert.equal(image.source.media_type, 'image/png');
  assert.ok(Buffer.from(image.source.data, 'base64').subarray(1, 4).toString() === 'PNG');
});

test('a server-side validation error comes back as an is_error tool result', async () => {
  const { messages } = await runWithMcp({ everything: everythingStdio() }, [
    { tool_calls: [{ name: 'mcp__everything__get-sum', input: { a: 'x' } }] },
    { text: 'ok' },
  ]);
  const [result] = toolResults(messages);
  assert.equal(result.is_error, true);
  assert.match(String(result.content), /get-sum|Invalid|invalid/);
  assert.equal(messages.at(-1)!.subtype, 'success');
});

test('MCP progress notifications show up in tool_progress while the call runs', async () => {
  const { messages } = await runWithMcp({ everything: everythingStdio() }, [
    { tool_calls: [{ name: 'mcp__everything__trigger-long-running-operation', input: { duration: 2, steps: 4 } }] },
    { text: 'done' },
  ]);
  const progress = messages.filter((m) => m.type === 'tool_progress');
  assert.ok(progress.length >= 1, 'at least one heartbeat');
  assert.ok(
    progress.some((p) => /progress [1-4]\/4/.test(p.output ?? '')),
    JSON.stringify(progress.map((p) => p.output)),
  );
  const resultAt = messages.findIndex((m) => m.type === 'user' && m.message.content[0]?.type === 'tool_result');
  assert.ok(messages.indexOf(progress.at(-1)!) < resultAt, 'no progress after the result');
  assert.match(toolResults(messages)[0].content[0].text, /Long running operation completed/);
});
