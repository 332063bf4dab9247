/**
 * WebSearch is never faked: it is offered only where the provider runs Anthropic's server-side
 * web search (the Anthropic provider), elsewhere a model that calls it gets "No such tool
 * available"; the search answer's blocks become the SDK's WebSearchOutput. End to end through the
 * CLI against a fake Messages API that answers the search request with server tool blocks.
 */
import { ToolState } from '../../src/tools/state.ts';
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
import { parseLines, runCli } from '../helpers/cli.ts';
import { anthropicBlock, anthropicStream, startFakeServer } from '../model/fake-servers.ts';

test('WebSearch is not offered without Anthropic, and a model that calls it gets the usual error', async () => {
  assert.ok(!builtinTools().some((t) => t.name === 'WebSearch'));
  const out = await runInProcess(
    [{ tool_calls: [{ name: 'WebSearch', id: 'toolu_s', input: { query: 'agentpipe' } }] }, { text: 'done' }],
    { cwd: tempDir(), permissionMode: 'bypassPermissions', persistSession: false },
  );
  assert.ok(!ofType(out, 'system', 'init')[0]!.tools.includes('WebSearch'));
  const result = toolResults(out).get('toolu_s')!;
  assert.equal(result.is_error, true);
  assert.equal(
    result.content,
    '<tool_use_error>Error: No such tool available: WebSearch. WebSearch is disabled for this session, in ' +
      'subagents as well as here.</tool_use_error>',
  );
});

test('only an Anthropic provider with the server-side search could run it; others get an honest error', async () => {
  assert.equal(isWebSearchAvailable(new AnthropicProvider({ apiKey: 'x', apiKeySource: 'ANTHROPIC_API_KEY' })), true);
  const scripted = { provider: 'scripted' } as ModelProvider;
  const context = {
    cwd: '/',
    signal: new AbortController().signal,
    sessionId: 's',
    toolUseId: 't',
    state: new ToolState(),
  };
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
    // eslint-disable-next-line max-len -- an expected message as one regex literal reads best whole
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

test("Anthropic: WebSearch runs the web_search_20250305 server tool in a request of its own; the result is the SDK's WebSearchOutput", async () => {
  const api = await startFakeServer((request) => {
    const body = request.body as {
      stream?: boolean;
      tools?: Array<{ type?: string; name?: string; allowed_domains?: string[] }>;
      messages: Array<{ content: unknown }>;
    };
    if (body.tools?.[0]?.type === 'web_search_20250305') {
      return {
        kind: 'json',
        status: 200,
        body: {
          id: 'msg_search',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 1 } },
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'agentpipe harness' } },
            {
              type: 'web_search_tool_result',
              tool_use_id: 'srvtoolu_1',
              content: [
                {
                  type: 'web_search_result',
                  title: 'agentpipe',
                  url: 'https://example.com/agentpipe',
                  encrypted_content: 'x',
                  page_age: null,
                },
              ],
            },
            { type: 'text', text: 'agentpipe wraps agent CLIs.' },
          ],
        },
      };
    }
    const last = JSON.stringify(body.messages.at(-1)?.content ?? '');
    if (last.includes('tool_result'))
      return {
        kind: 'sse',
        frames: anthropicStream(
          [anthropicBlock(0, { type: 'text', text: '' }, [{ type: 'text_delta', text: 'Found it.' }])],
          'end_turn',
        ),
      };
    return {
      kind: 'sse',
      frames: anthropicStream(
        [
          anthropicBlock(0, { type: 'tool_use', id: 'toolu_ws', name: 'WebSearch', input: {} }, [
            {
              type: 'input_json_delta',
              partial_json: JSON.stringify({ query: 'agentpipe harness', allowed_domains: ['example.com'] }),
            },
          ]),
        ],
        'tool_use',
      ),
    };
  });
  try {
    const run = await runCli(
      [
        '-p',
        'search it',
        '--model',
        'claude-sonnet-4-5',
        '--allowedTools',
        'WebSearch',
        '--output-format',
        'stream-json',
        '--verbose',
        '--no-session-persistence',
      ],
      {
        cwd: tempDir(),
        env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-test' },
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const lines = parseLines(run.stdout);
    assert.ok(lines[0]!.tools.includes('WebSearch'));
    const user = lines.find((l) => l.type === 'user')!;
    assert.deepEqual(
      { ...user.tool_use_result, durationSeconds: 0 },
      {
        query: 'agentpipe harness',
        durationSeconds: 0,
        searchCount: 1,
        results: [
          { tool_use_id: 'srvtoolu_1', content: [{ title: 'agentpipe', url: 'https://example.com/agentpipe' }] },
          'agentpipe wraps agent CLIs.',
        ],
      },
    );
    const search = api.requests.find(
      (r) => (r.body as { tools?: Array<{ type?: string }> }).tools?.[0]?.type === 'web_search_20250305',
    )!;
    assert.deepEqual((search.body as { tools: unknown[] }).tools[0], {
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: 8,
      allowed_domains: ['example.com'],
    });
    assert.equal(lines.at(-1)!.result, 'Found it.');
  } finally {
    await api.close();
  }
});
