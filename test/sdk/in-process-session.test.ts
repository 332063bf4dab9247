/** The library's in-process query() opens sessions as the CLI does: transcript, resume, credentials, schema checks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { query, type AgentMessage, type QueryOptions } from '../../src/index.ts';
import { anthropic, place, text, transcripts } from '../session/helpers.ts';

async function collect(prompt: string, options: QueryOptions): Promise<AgentMessage[]> {
  const messages: AgentMessage[] = [];
  for await (const message of query({ prompt, options })) messages.push(message);
  return messages;
}

const claude = { model: 'claude-sonnet-4-6', permissionMode: 'bypassPermissions' } as const;

test('query() saves the transcript; query({resume}) continues the session with its history', async () => {
  const p = place();
  const server = await anthropic([text('Noted: 42.'), text('It was 42.')]);
  const env = { ...p.env, ...server.env };
  const first = await collect('remember 42', { ...claude, cwd: p.cwd, env });
  const sessionId = first[0]!.session_id;
  assert.equal(first.at(-1)!.type, 'result');
  assert.deepEqual(
    transcripts(p.home).map((f) => path.basename(f)),
    [`${sessionId}.jsonl`],
  );

  const second = await collect('what number?', { ...claude, cwd: p.cwd, env, resume: sessionId });
  assert.equal(second[0]!.session_id, sessionId);
  assert.equal((second.at(-1) as { result?: string }).result, 'It was 42.');
  assert.deepEqual(server.requests[1]!.body.messages, [
    { role: 'user', content: 'remember 42' },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted: 42.' }] },
    { role: 'user', content: 'what number?' },
  ]);
});

test('query() without an API key: auth_status first, then an error result', async () => {
  const p = place();
  const messages = await collect('hi', { ...claude, cwd: p.cwd, env: { ...p.env, ANTHROPIC_API_KEY: '' } });
  assert.equal(messages[0]!.type, 'auth_status');
  assert.match((messages[0] as { error?: string }).error!, /No Anthropic API key/);
  const result = messages.at(-1)!;
  assert.ok(result.type === 'result' && result.is_error);
});

test("query() with apiKeyHelper: the helper's key reaches the provider, auth_status reports it", async () => {
  const p = place();
  const server = await anthropic([text('Hello with a helper key.')]);
  const key = 'sk-ant-helper-in-process-0123456789';
  const messages = await collect('hi', {
    ...claude,
    cwd: p.cwd,
    env: { ...p.env, ANTHROPIC_BASE_URL: server.url },
    apiKeyHelper: `echo ${key}`,
  });
  assert.deepEqual(
    messages.filter((m) => m.type === 'auth_status').map((m) => (m as { isAuthenticating: boolean }).isAuthenticating),
    [true, false],
  );
  const headers = server.requests[0]!.headers;
  assert.ok(headers['x-api-key'] === key || headers.authorization === `Bearer ${key}`);
  assert.equal((messages.at(-1) as { result?: string }).result, 'Hello with a helper key.');
});

test('query() with options that cannot start a session: the stream throws a clear error', async () => {
  const p = place();
  await assert.rejects(
    collect('hi', { model: 'scripted', cwd: p.cwd, env: p.env, resume: '00000000-0000-4000-8000-000000000000' }),
    {
      name: 'SessionSetupError',
      message: 'No conversation found with session ID: 00000000-0000-4000-8000-000000000000',
    },
  );
  await assert.rejects(
    collect('hi', {
      model: 'scripted',
      cwd: p.cwd,
      env: p.env,
      outputFormat: { type: 'json_schema', schema: { type: 'nonsense' } },
    }),
    /invalid JSON schema/,
  );
});
