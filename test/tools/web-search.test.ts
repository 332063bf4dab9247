/**
 * WebSearch is never faked: it is offered only where the provider runs Anthropic's server-side
 * web search (none does yet), so a model that calls it gets "No such tool available"; the
 * answer's blocks become the SDK's WebSearchOutput.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/model/anthropic.ts';
import {
  isWebSearchAvailable,
  webSearchOutputOf,
  webSearchText,
  webSearchTool,
} from '../../src/tools/builtin/web-search.ts';
import { builtinTools } from '../../src/tools/builtin/index.ts';
import type { ModelProvider } from '../../src/model/types.ts';
import { ofType, runInProcess, toolResults } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

test('WebSearch is not offered, and a model that calls it gets the usual error', async () => {
  assert.ok(!builtinTools().some((t) => t.name === 'WebSearch'));
  const out = await runInProcess(
    [{ tool_calls: [{ name: 'WebSearch', id: 'toolu_s', input: { query: 'agentpipe' } }] }, { text: 'done' }],
    { cwd: tempDir(), permissionMode: 'bypassPermissions', persistSession: false },
  );
  assert.ok(!ofType(out, 'system', 'init')[0]!.tools.includes('WebSearch'));
  const result = toolResults(out).get('toolu_s')!;
  assert.equal(result.is_error, true);
  assert.equal(result.content, '<tool_use_error>Error: No such tool available: WebSearch</tool_use_error>');
});

test('only an Anthropic provider with the server-side search could run it; others get an honest error', async () => {
  assert.equal(isWebSearchAvailable(new AnthropicProvider({ apiKey: 'x', apiKeySource: 'ANTHROPIC_API_KEY' })), false);
  const scripted = { provider: 'scripted' } as ModelProvider;
  const context = { cwd: '/', signal: new AbortController().signal, sessionId: 's', toolUseId: 't', state: new Map() };
  const refused = await webSearchTool.callInAgent({ query: 'x' }, context, { ctx: { provider: scripted, model: 'm' } });
  assert.equal(refused.isError, true);
  assert.match(String(refused.content), /not available with the scripted provider/);
  const searching = {
    provider: 'anthropic',
    webSearch: async () => [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: [{ type: 'web_search_result', title: 'X', url: 'https://x.example/', encrypted_content: '…' }],
      },
      { type: 'text', text: 'X is a letter.' },
    ],
  } as unknown as ModelProvider;
  const found = await webSearchTool.callInAgent({ query: 'x' }, context, { ctx: { provider: searching, model: 'm' } });
  assert.equal(found.isError, undefined);
  assert.deepEqual(
    { ...(found.data as object), durationSeconds: 0 },
    {
      query: 'x',
      results: [{ tool_use_id: 'srvtoolu_1', content: [{ title: 'X', url: 'https://x.example/' }] }, 'X is a letter.'],
      durationSeconds: 0,
      searchCount: 1,
    },
  );
  assert.match(
    String(found.content),
    /^Web search results for query: "x"\n\nLinks: \[\{"title":"X","url":"https:\/\/x.example\/"\}\]\n\nX is a letter\.\n\nREMINDER/,
  );
});

test('search errors and malformed blocks are reported, never invented', () => {
  const output = webSearchOutputOf(
    'q',
    [
      null,
      7,
      {
        type: 'web_search_tool_result',
        tool_use_id: 's',
        content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
      },
      { type: 'web_search_tool_result', tool_use_id: 't', content: [{ title: 3 }] },
    ],
    1,
  );
  assert.deepEqual(output.results, ['Web search error: max_uses_exceeded', { tool_use_id: 't', content: [] }]);
  assert.match(webSearchText(output), /No links found\./);
});
