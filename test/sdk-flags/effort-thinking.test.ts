/**
 * `--effort`, `--thinking`, `--thinking-display`, `--max-thinking-tokens` and `--betas` as the providers send them: on
 * Anthropic's API over Claude Code's default request for the model (model/claude-code-request.ts; CLAUDE's
 * claude-sonnet-4-5 thinks with a budget and has no default effort).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, parseLines } from '../helpers/cli.ts';
import { OPENAI_DONE, openaiChunk, openaiUsage, startFakeServer } from '../model/fake-servers.ts';
import { CLAUDE, STREAM, anthropic, place, run, text } from '../session/helpers.ts';

/** Claude Code's betas for claude-sonnet-4-5 without a thinking display or effort. */
const DEFAULT_BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,' +
  'thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20';

test('Anthropic: --thinking adaptive and --effort go out as thinking and output_config, as the real CLI sends them; init reports the effort', async () => {
  const p = place();
  const server = await anthropic([text('ok')]);
  const { stdout, code } = await run(
    p,
    ['-p', 'hi', ...STREAM, ...CLAUDE, '--thinking', 'adaptive', '--effort', 'high'],
    { env: server.env },
  );
  assert.equal(code, 0);
  const body = server.requests[0]!.body;
  assert.deepEqual(body.thinking, { type: 'adaptive' });
  assert.deepEqual(body.output_config, { effort: 'high' });
  const init = parseLines(stdout).find((l) => l.subtype === 'init')!;
  assert.equal(init.effort, 'high');
  // No display asked for: no display beta.
  assert.equal(server.requests[0]!.headers['anthropic-beta'], `${DEFAULT_BETAS},effort-2025-11-24`);
});

test('Anthropic: --thinking enabled with --max-thinking-tokens and a display; --betas becomes the anthropic-beta header', async () => {
  const p = place();
  const server = await anthropic([text('ok')]);
  const args = [
    '-p',
    'hi',
    ...STREAM,
    ...CLAUDE,
    '--thinking',
    'enabled',
    '--max-thinking-tokens',
    '2048',
    '--thinking-display',
    'omitted',
    '--betas',
    'context-1m-2025-08-07,interleaved-thinking-2025-05-14',
  ];
  const { stdout, code } = await run(p, args, { env: server.env });
  assert.equal(code, 0);
  const request = server.requests[0]!;
  assert.deepEqual(request.body.thinking, { type: 'enabled', budget_tokens: 2048, display: 'omitted' });
  assert.equal('output_config' in request.body, false);
  // The user's betas after Claude Code's, each once.
  assert.equal(request.headers['anthropic-beta'], `${DEFAULT_BETAS},context-1m-2025-08-07`);
  const init = parseLines(stdout).find((l) => l.subtype === 'init')!;
  assert.deepEqual(init.betas, ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14']);
  assert.equal('effort' in init, false);
});

test("Anthropic: --thinking disabled is sent; without any thinking flag, Claude Code's default for the model", async () => {
  const p = place();
  const server = await anthropic([text('ok')]);
  assert.equal(
    (await run(p, ['-p', 'hi', ...STREAM, ...CLAUDE, '--thinking', 'disabled'], { env: server.env })).code,
    0,
  );
  assert.equal((await run(p, ['-p', 'hi', ...STREAM, ...CLAUDE], { env: server.env })).code, 0);
  assert.deepEqual(server.requests[0]!.body.thinking, { type: 'disabled' });
  assert.equal('context_management' in server.requests[0]!.body, false);
  assert.equal(server.requests[0]!.headers['anthropic-beta'], DEFAULT_BETAS);
  assert.deepEqual(server.requests[1]!.body.thinking, { type: 'enabled', budget_tokens: 31_999, display: 'updates' });
  assert.deepEqual(server.requests[1]!.body.context_management, {
    edits: [{ type: 'clear_thinking_20251015', keep: 'all' }],
  });
  assert.equal(server.requests[1]!.headers['anthropic-beta'], `${DEFAULT_BETAS},thinking-display-updates-2026-08-18`);
});

test('Anthropic: CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1 leaves the experimental betas out', async () => {
  const p = place();
  const server = await anthropic([text('ok')]);
  const env = { ...server.env, CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: '1' };
  assert.equal((await run(p, ['-p', 'hi', ...STREAM, ...CLAUDE], { env })).code, 0);
  assert.equal(server.requests[0]!.headers['anthropic-beta'], 'claude-code-20250219,interleaved-thinking-2025-05-14');
  assert.deepEqual(server.requests[0]!.body.thinking, { type: 'enabled', budget_tokens: 31_999 });
});

test("docs/sdk.md's example: --thinking disabled, and CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS with --effort", async () => {
  const doc = readFileSync(path.join(ROOT, 'docs/sdk.md'), 'utf8');
  const at = doc.indexOf('<!-- example: thinking-off -->');
  assert.ok(at !== -1);
  const block = /```sh\n([\s\S]*?)\n```/.exec(doc.slice(at))![1]!;
  const p = place();
  const server = await anthropic([text('ok')]);
  for (const line of block.split('\n')) {
    const words = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
    const program = words.findIndex((w) => w === 'agentpipe');
    const env = Object.fromEntries(words.slice(0, program).map((w) => w.split('=') as [string, string]));
    assert.equal((await run(p, words.slice(program + 1), { env: { ...server.env, ...env } })).code, 0, line);
  }
  const [off, stable] = server.requests;
  assert.deepEqual(off!.body.thinking, { type: 'disabled' });
  assert.deepEqual(off!.body.output_config, { effort: 'high' });
  assert.deepEqual(stable!.body.thinking, { type: 'adaptive' });
  assert.deepEqual(stable!.body.output_config, { effort: 'low' });
  assert.equal('context_management' in stable!.body, false);
  assert.equal(
    stable!.headers['anthropic-beta'],
    'claude-code-20250219,interleaved-thinking-2025-05-14,effort-2025-11-24',
  );
});

test("Anthropic: the user's settings alwaysThinkingEnabled false turn the default thinking off, without a warning", async () => {
  const p = place();
  writeFileSync(path.join(p.home, 'settings.json'), JSON.stringify({ alwaysThinkingEnabled: false }));
  const server = await anthropic([text('ok')]);
  const { code, stderr } = await run(p, ['-p', 'hi', ...STREAM, ...CLAUDE], { env: server.env });
  assert.equal(code, 0);
  assert.deepEqual(server.requests[0]!.body.thinking, { type: 'disabled' });
  assert.doesNotMatch(stderr, /alwaysThinkingEnabled/);
});

test('OpenAI-compatible: --effort becomes reasoning_effort', async () => {
  const p = place();
  const server = await startFakeServer({
    kind: 'sse',
    frames: [
      openaiChunk({ role: 'assistant', content: 'ok' }),
      openaiChunk({}, 'stop'),
      openaiUsage(5, 1),
      OPENAI_DONE,
    ],
  });
  after(() => server.close());
  const { code } = await run(p, [
    '-p',
    'hi',
    ...STREAM,
    '--base-url',
    `${server.url}/v1`,
    '--model',
    'local-model',
    '--effort',
    'low',
  ]);
  assert.equal(code, 0);
  assert.equal(server.requests[0]!.body.reasoning_effort, 'low');
});

test('bad values are refused with the choices', async () => {
  const p = place();
  const { code, stderr, stdout } = await run(p, ['-p', 'hi', '--thinking', 'sometimes']);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /adaptive, enabled, disabled/);
});
