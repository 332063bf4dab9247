/** `--effort`, `--thinking`, `--thinking-display`, `--max-thinking-tokens` and `--betas` as the providers send them. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { OPENAI_DONE, openaiChunk, openaiUsage, startFakeServer } from '../model/fake-servers.ts';
import { CLAUDE, STREAM, anthropic, place, run, text } from '../session/helpers.ts';

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
  assert.equal(server.requests[0]!.headers['anthropic-beta'], undefined);
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
  assert.equal(request.headers['anthropic-beta'], 'context-1m-2025-08-07,interleaved-thinking-2025-05-14');
  const init = parseLines(stdout).find((l) => l.subtype === 'init')!;
  assert.deepEqual(init.betas, ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14']);
  assert.equal('effort' in init, false);
});

test('Anthropic: --thinking disabled; without any thinking flag no thinking field is sent', async () => {
  const p = place();
  const server = await anthropic([text('ok')]);
  assert.equal(
    (await run(p, ['-p', 'hi', ...STREAM, ...CLAUDE, '--thinking', 'disabled'], { env: server.env })).code,
    0,
  );
  assert.equal((await run(p, ['-p', 'hi', ...STREAM, ...CLAUDE], { env: server.env })).code, 0);
  assert.deepEqual(server.requests[0]!.body.thinking, { type: 'disabled' });
  assert.equal('thinking' in server.requests[1]!.body, false);
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
