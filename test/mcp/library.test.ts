/** MCP servers from the library's `mcpServers` option, next to custom tools. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineTool } from '../../src/index.ts';
import { runLibrarySession } from '../tools/library-session.ts';
import { fixtureServer } from './helpers.ts';

test('SessionOptions.mcpServers connects the servers; their tools sit beside custom tools', async () => {
  const double = defineTool('double', {
    description: 'Doubles',
    readOnly: true,
    parameters: { type: 'object', properties: { n: { type: 'number' } } },
    handler: ({ n }: { n: number }) => String(n * 2),
  });
  const { messages, toolResults, requests, result } = await runLibrarySession(
    { mcpServers: { calc: fixtureServer() }, extraTools: [double], allowedTools: ['mcp__calc'] },
    [
      {
        tool_calls: [
          { name: 'mcp__calc__add', input: { a: 2, b: 3 } },
          { name: 'double', input: { n: 21 } },
        ],
      },
      { text: 'done' },
    ],
  );
  const init = messages.find((m) => m.subtype === 'init')!;
  assert.deepEqual(init.mcp_servers, [{ name: 'calc', status: 'connected', source: 'dynamic' }]);
  const offered = requests[0].tools.map((t) => t.name);
  assert.ok(offered.includes('mcp__calc__add') && offered.includes('double'));
  assert.equal(requests[0].tools.find((t) => t.name === 'mcp__calc__add')!.description, 'Adds two numbers');
  assert.deepEqual(
    toolResults.map((r) => (typeof r.content === 'string' ? r.content : r.content[0].text)).sort(),
    ['42', '5'],
    'both ran (read-only calls run together, in any order)',
  );
  assert.equal(result.subtype, 'success');
});

test('an MCP tool is denied in the default mode unless allowed by a rule, even one its server calls read-only', async () => {
  const turns = [{ tool_calls: [{ name: 'mcp__calc__fail', input: {} }] }, { text: 'ok' }];
  const denied = await runLibrarySession({ mcpServers: { calc: fixtureServer() } }, turns);
  assert.equal(denied.result.permission_denials[0].tool_name, 'mcp__calc__fail');
  // `add` says readOnlyHint: that is the server's claim, not the check's judgment (as Claude Code 2.1.332 asks).
  const readOnly = await runLibrarySession({ mcpServers: { calc: fixtureServer() } }, [
    { tool_calls: [{ name: 'mcp__calc__add', input: { a: 2, b: 3 } }] },
    { text: 'ok' },
  ]);
  assert.deepEqual(
    readOnly.result.permission_denials.map((d: { tool_name: string }) => d.tool_name),
    ['mcp__calc__add'],
  );
  // In plan mode too: it is not known to change nothing.
  const planned = await runLibrarySession({ mcpServers: { calc: fixtureServer() }, permissionMode: 'plan' }, [
    { tool_calls: [{ name: 'mcp__calc__add', input: { a: 2, b: 3 } }] },
    { text: 'ok' },
  ]);
  assert.equal(planned.result.permission_denials.length, 1);
  const allowed = await runLibrarySession(
    { mcpServers: { calc: fixtureServer() }, allowedTools: ['mcp__calc'] },
    turns,
  );
  assert.deepEqual(allowed.result.permission_denials, []);
  assert.equal(allowed.toolResults[0].content, 'it broke');
  assert.equal(allowed.toolResults[0].is_error, true);
});
