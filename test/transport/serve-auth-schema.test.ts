/** `agentpipe serve` reports credentials (auth_status) and honours --json-schema, as stdio does. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { place } from '../session/helpers.ts';
import { writeScript } from '../helpers/workspace.ts';
import { converse, serveOn } from './serve-client.ts';
import { kinds, watchedCli } from './ws-helpers.ts';

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};

test('serve without an API key: auth_status with the error, then a clean error result over the socket', async () => {
  const p = place();
  const { cli, url } = await serveOn(['--model', 'claude-sonnet-4-5', '--cwd', p.cwd], {
    ...p.env,
    ANTHROPIC_API_KEY: '',
  });
  const r = await converse(url, 'hi');
  assert.equal(r.code, 1000);
  assert.deepEqual(kinds(r.lines), ['auth_status', 'system/init', 'assistant', 'result'], 'the same lines as on stdio');
  const [auth, init, assistant, result] = r.lines;
  assert.match(assistant!.message.content[0].text, /^No Anthropic API key/);
  assert.equal(auth!.isAuthenticating, false);
  assert.match(auth!.error, /No Anthropic API key/);
  assert.equal(auth!.session_id, init!.session_id);
  // Ended on the failed request as Claude Code ends one: a success with is_error and the error's text.
  assert.equal(result!.subtype, 'success');
  assert.equal(result!.is_error, true);
  assert.equal(result!.api_error_status, null);
  assert.match(result!.result, /No Anthropic API key/);
  assert.doesNotMatch(cli.stderr(), /\n\s+at /, 'no stack trace');
});

test('serve --json-schema: the invalid answer is sent back, the retry validates → structured_output', async () => {
  const p = place();
  const script = writeScript(p.cwd, [
    { text: '{"city": "Paris"}' },
    { text: '{"city": "Paris", "population": 2102650}' },
  ]);
  const { url } = await serveOn(
    ['--model', 'scripted', '--script', script, '--cwd', p.cwd, '--json-schema', JSON.stringify(SCHEMA)],
    p.env,
  );
  const r = await converse(url, 'Biggest French city?');
  const feedback = r.lines.find((l) => l.type === 'user' && l.isSynthetic)!;
  assert.match(feedback.message.content[0].text, /must have required property 'population'/);
  const result = r.lines.at(-1)!;
  assert.equal(result.subtype, 'success');
  assert.deepEqual(result.structured_output, { city: 'Paris', population: 2102650 });
  assert.equal(result.num_turns, 2);
});

test('serve --json-schema with an invalid schema: a usage error at startup', async () => {
  const cli = watchedCli(['serve', '--port', '0', '--model', 'scripted', '--json-schema', '{"type": "nonsense"}']);
  assert.equal(await cli.exited, 1);
  assert.match(cli.stderr(), /agentpipe: error: .*invalid JSON schema/);
});
