/**
 * The library options of the same names (fallbackModel, effort, thinking, betas, additionalDirectories, settingSources,
 * agent, debugFile), in-process and through the CLI engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { query, type AgentMessage, type QueryOptions } from '../../src/index.ts';
import { CLI_PATH } from '../helpers/cli.ts';
import { tempDir } from '../helpers/workspace.ts';
import { anthropic, place, text } from '../session/helpers.ts';

async function collect(prompt: string, options: QueryOptions): Promise<AgentMessage[]> {
  const messages: AgentMessage[] = [];
  for await (const message of query({ prompt, options })) messages.push(message);
  return messages;
}

for (const engine of ['in-process', 'cli'] as const) {
  test(`${engine}: effort, thinking, betas, additionalDirectories, agent and debugFile reach the request`, async () => {
    const p = place();
    const server = await anthropic([text('ok')]);
    const extra = tempDir();
    const debugFile = path.join(p.home, 'debug.log');
    const messages = await collect('hi', {
      model: 'claude-sonnet-4-6',
      cwd: p.cwd,
      env: { ...process.env, ...p.env, ...server.env },
      effort: 'medium',
      thinking: { type: 'enabled', budgetTokens: 1024 },
      betas: ['context-1m-2025-08-07'],
      additionalDirectories: [extra],
      agents: { helper: { description: 'Helps', prompt: 'You help.', tools: ['Read'] } },
      agent: 'helper',
      debugFile,
      ...(engine === 'cli' ? { executable: CLI_PATH } : {}),
    });
    const result = messages.at(-1)!;
    assert.ok(result.type === 'result' && result.subtype === 'success');
    const request = server.requests[0]!;
    assert.deepEqual(request.body.output_config, { effort: 'medium' });
    assert.deepEqual(request.body.thinking, { type: 'enabled', budget_tokens: 1024 });
    // Claude Code's default betas for the model (model/claude-code-request.ts), the user's after them.
    assert.equal(
      request.headers['anthropic-beta'],
      'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,' +
        'thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24,context-1m-2025-08-07',
    );
    assert.equal(
      request.body.system,
      `You help.\n\nAdditional working folders (you may read and edit files there too): ${extra}`,
    );
    assert.deepEqual(
      request.body.tools.map((t: { name: string }) => t.name),
      ['Read'],
    );
    assert.match(
      readFileSync(debugFile, 'utf8'),
      /\[api\] request: model claude-sonnet-4-6, 1 messages, tools \[Read\], effort medium, thinking enabled/,
    );
  });

  test(`${engine}: settingSources defaults to none for the library; ['project'] loads the project file`, async () => {
    const p = place();
    mkdirSync(path.join(p.cwd, '.agentpipe'));
    writeFileSync(path.join(p.cwd, '.agentpipe', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash'] } }));
    const base: QueryOptions = {
      model: 'scripted',
      cwd: p.cwd,
      env: { ...process.env, ...p.env },
      persistSession: false,
      ...(engine === 'cli' ? { executable: CLI_PATH } : {}),
    };
    const toolsOf = (messages: AgentMessage[]) =>
      (messages.find((m) => m.type === 'system' && m.subtype === 'init') as { tools: string[] }).tools;
    assert.ok(toolsOf(await collect('hi', base)).includes('Bash'));
    assert.equal(toolsOf(await collect('hi', { ...base, settingSources: ['project'] })).includes('Bash'), false);
  });
}

test('in-process: fallbackModel takes over when the model is not found', async () => {
  const p = place();
  const notFound = {
    kind: 'json' as const,
    status: 404,
    body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-gone' } },
  };
  // The 404 is asked once more without streaming (as Claude Code does), then the fallback model is asked.
  const server = await anthropic([notFound, notFound, text('from the fallback')]);
  const messages = await collect('hi', {
    model: 'claude-gone',
    fallbackModel: 'claude-sonnet-4-6',
    cwd: p.cwd,
    env: { ...process.env, ...p.env, ...server.env },
  });
  const notice = messages.find((m) => m.type === 'system' && m.subtype === 'model_fallback');
  assert.ok(notice && notice.type === 'system' && notice.subtype === 'model_fallback');
  assert.equal(notice.fallback_model, 'claude-sonnet-4-6');
  assert.deepEqual(
    server.requests.map((r) => r.body.model),
    ['claude-gone', 'claude-gone', 'claude-sonnet-4-6'],
  );
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.subtype === 'success' && result.result === 'from the fallback');
});
