/**
 * `--fallback-model`: a request that fails on its model goes on with the fallback, with a `system/model_fallback`
 * notice.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startFakeServer } from '../model/fake-servers.ts';
import { KEY, STREAM, STREAM_IN, place, prompts, run, text, toolCall } from '../session/helpers.ts';

test('overloaded after the retries: the request goes to the fallback model, which answers', async () => {
  const dir = tempDir();
  const overloaded = { error: { status: 529, message: 'Overloaded', retry_after_s: 0 } };
  const script = writeScript(dir, [
    overloaded,
    overloaded,
    overloaded,
    overloaded,
    { text: 'Answered by the fallback.' },
  ]);
  const { stdout, code } = await runCli(
    [
      '-p',
      'hi',
      ...STREAM,
      '--model',
      'primary-model',
      '--script',
      script,
      '--fallback-model',
      'backup-model',
      '--no-session-persistence',
    ],
    { cwd: dir, env: { CLAUDE_CODE_MAX_RETRIES: '3' } },
  );
  assert.equal(code, 0);
  const lines = parseLines(stdout);
  assert.equal(lines.filter((l) => l.subtype === 'api_retry').length, 3);
  const notice = lines.find((l) => l.subtype === 'model_fallback');
  assert.ok(notice, 'a model_fallback notice');
  assert.equal(notice.original_model, 'primary-model');
  assert.equal(notice.fallback_model, 'backup-model');
  assert.equal(notice.trigger, 'overloaded');
  assert.equal(notice.error_status, 529);
  assert.match(notice.content, /Switched to backup-model/);
  const answer = lines.find((l) => l.type === 'assistant');
  assert.equal(answer!.message.model, 'backup-model');
  const result = lines.at(-1)!;
  assert.equal(result.subtype, 'success');
  assert.equal(result.result, 'Answered by the fallback.');
  assert.ok(result.modelUsage['backup-model']);
});

test('model not found on the API: the fallback serves that request and the rest of the prompt; the next prompt tries the primary again', async () => {
  const p = place();
  let backupReplies = 0;
  const server = await startFakeServer((request) => {
    if (request.body.model === 'claude-missing') {
      return {
        kind: 'json',
        status: 404,
        body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-missing' } },
      };
    }
    backupReplies++;
    return backupReplies === 1
      ? toolCall('toolu_1', 'Glob', { pattern: '*.none' })
      : text(`reply ${backupReplies} from ${request.body.model}`);
  });
  after(() => server.close());
  const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY };
  const { stdout, code } = await run(
    p,
    [...STREAM_IN, '--model', 'claude-missing', '--fallback-model', 'claude-backup'],
    { stdin: prompts('one', 'two'), env },
  );
  assert.equal(code, 0);
  const lines = parseLines(stdout);
  assert.deepEqual(
    lines.filter((l) => l.type === 'result').map((r) => r.result),
    ['reply 2 from claude-backup', 'reply 3 from claude-backup'],
  );
  assert.equal(
    lines.filter((l) => l.subtype === 'model_fallback').length,
    2,
    'each prompt first tries the session model',
  );
  assert.equal(lines.find((l) => l.subtype === 'model_fallback')!.trigger, 'model_not_found');
  // Each 404 is first asked once more without streaming, as Claude Code does (model-turn.ts), then falls back.
  assert.deepEqual(
    server.requests.map((r) => [r.body.model, r.body.stream ?? false]),
    [
      ['claude-missing', true],
      ['claude-missing', false],
      ['claude-backup', true],
      ['claude-backup', true],
      ['claude-missing', true],
      ['claude-missing', false],
      ['claude-backup', true],
    ],
  );
  assert.deepEqual(
    lines.filter((l) => l.subtype === 'init').map((l) => l.model),
    ['claude-missing', 'claude-missing'],
  );
});

test('a request that fails for another reason does not fall back', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ error: { status: 400, message: 'bad request' } }, { text: 'never' }]);
  const { stdout, code } = await runCli(
    ['-p', 'hi', ...STREAM, '--script', script, '--fallback-model', 'backup-model', '--no-session-persistence'],
    { cwd: dir },
  );
  assert.equal(code, 1);
  const lines = parseLines(stdout);
  assert.equal(
    lines.some((l) => l.subtype === 'model_fallback'),
    false,
  );
  // Ended on the failed request, as Claude Code ends it.
  assert.deepEqual(
    [lines.at(-1)!.subtype, lines.at(-1)!.is_error, lines.at(-1)!.api_error_status],
    ['success', true, 400],
  );
});

test('--fallback-model equal to --model is refused, like the official SDK does', async () => {
  const { stderr, code, stdout } = await runCli(['-p', 'hi', '--model', 'claude-x', '--fallback-model', 'claude-x']);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(stderr, /Fallback model cannot be the same as the main model/);
});
