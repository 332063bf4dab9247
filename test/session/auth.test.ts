import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { anthropic, CLAUDE, KEY, place, run, STREAM, text } from './helpers.ts';

const UNAUTHORIZED = {
  kind: 'json' as const,
  status: 401,
  body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
  headers: { 'retry-after': '0' },
};
/** One retry, as Claude Code retries a 401 (its key may have been refreshed meanwhile). */
const ONE_RETRY = { CLAUDE_CODE_MAX_RETRIES: '1' };
const HELPER_KEY = 'sk-ant-helper-secret-abcdef0123456789';

function assertNoSecret(output: { stdout: string; stderr: string }, secret: string): void {
  assert.ok(!output.stdout.includes(secret), 'the key must not appear on stdout');
  assert.ok(!output.stderr.includes(secret), 'the key must not appear on stderr');
}

test("a 401 from the provider: retried, then a clean result in Claude Code's words, exit 1; the key is never printed", async () => {
  const p = place();
  const server = await anthropic([UNAUTHORIZED]);
  const r = await run(p, [...STREAM, ...CLAUDE, 'hi'], { env: { ...server.env, ...ONE_RETRY } });
  assert.equal(r.code, 1);
  const lines = parseLines(r.stdout);
  // As Claude Code 2.1.332: one api_retry (authentication_failed), then the failed request's message and the result;
  // no auth_status (errors/401 in the differential suite).
  assert.deepEqual(
    lines.map((l) => (l.subtype ? `${l.type}/${l.subtype}` : l.type)),
    ['system/init', 'system/api_retry', 'assistant', 'result/success'],
  );
  assert.equal(lines.find((l) => l.subtype === 'api_retry')!.error, 'authentication_failed');
  assert.equal(lines[2].error, 'authentication_failed');
  // As Claude Code ends it: a success with is_error, its words for a rejected key, the status.
  assert.deepEqual(
    [lines.at(-1)!.subtype, lines.at(-1)!.is_error, lines.at(-1)!.api_error_status, lines.at(-1)!.result],
    ['success', true, 401, 'Invalid API key · Fix external API key'],
  );
  assert.equal(server.requests.length, 2, 'a rejected key is retried as CLAUDE_CODE_MAX_RETRIES says');
  assertNoSecret(r, KEY);

  const textMode = await run(p, [...CLAUDE, 'hi'], { env: { ...server.env, CLAUDE_CODE_MAX_RETRIES: '0' } });
  assert.equal(textMode.code, 1);
  assert.equal(textMode.stdout, 'Invalid API key · Fix external API key\n');
  assertNoSecret(textMode, KEY);
});

test('a 401 under the agentpipe outcome policy: auth_status with the error before the result', async () => {
  const p = place();
  const server = await anthropic([UNAUTHORIZED]);
  const r = await run(p, [...STREAM, ...CLAUDE, '--outcome-policy', 'agentpipe', 'hi'], { env: server.env });
  assert.equal(r.code, 1);
  const lines = parseLines(r.stdout);
  const auth = lines.filter((l) => l.type === 'auth_status');
  assert.equal(auth.length, 1);
  assert.equal(auth[0].isAuthenticating, false);
  assert.match(auth[0].error, /401/);
  assert.equal(typeof auth[0].uuid, 'string');
  assert.equal(auth[0].session_id, lines[0].session_id);
  assert.ok(lines.indexOf(auth[0]) < lines.length - 1);
  assert.equal(lines.at(-1)!.type, 'result');
  assert.equal(server.requests.length, 1, "agentpipe's policy does not retry a 401");
  assertNoSecret(r, KEY);
});

test('no API key at all: auth_status error, clear text-mode message, exit 1', async () => {
  const r = await run(place(), ['--model', 'claude-sonnet-4-5', 'hi'], { env: { ANTHROPIC_API_KEY: '' } });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^No Anthropic API key: set ANTHROPIC_API_KEY/);
});

test('--api-key-helper: runs when the key is needed, reports progress, the key reaches the provider and nowhere else', async () => {
  const p = place();
  const server = await anthropic([text('Hello with a helper key.')]);
  const helper = `echo "fetching a key..." >&2; echo ${HELPER_KEY}`;
  const r = await run(p, [...STREAM, ...CLAUDE, '--api-key-helper', helper, 'hi'], {
    env: { ...server.env, ANTHROPIC_API_KEY: '' },
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = parseLines(r.stdout);
  assert.equal(lines[0].apiKeySource, 'apiKeyHelper');
  const auth = lines.filter((l) => l.type === 'auth_status');
  assert.deepEqual(
    auth.map((a) => [a.isAuthenticating, a.output, a.error]),
    [
      [true, [], undefined],
      [true, ['fetching a key...'], undefined],
      [false, ['fetching a key...'], undefined],
    ],
  );
  const headers = server.requests[0].headers;
  assert.ok(headers['x-api-key'] === HELPER_KEY || headers.authorization === `Bearer ${HELPER_KEY}`);
  assert.equal(lines.at(-1)!.result, 'Hello with a helper key.');
  assertNoSecret(r, HELPER_KEY);
});

test("--api-key-helper failing: auth_status error, a clean result, exit 1, the helper's secret output redacted", async () => {
  const p = place();
  const server = await anthropic([text('never')]);
  const r = await run(
    p,
    [...STREAM, ...CLAUDE, '--api-key-helper', `echo "token ${HELPER_KEY} expired" >&2; exit 3`, 'hi'],
    { env: { ...server.env, ANTHROPIC_API_KEY: '' } },
  );
  assert.equal(r.code, 1);
  const lines = parseLines(r.stdout);
  const last = lines.filter((l) => l.type === 'auth_status').at(-1)!;
  assert.equal(last.isAuthenticating, false);
  assert.equal(last.error, 'API key helper failed: exited with code 3');
  assert.deepEqual(last.output, ['token [redacted] expired']);
  assert.deepEqual([lines.at(-1)!.subtype, lines.at(-1)!.is_error], ['success', true]);
  assert.equal(server.requests.length, 0);
  assertNoSecret(r, HELPER_KEY);
});
