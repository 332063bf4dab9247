/**
 * query({executable}) passes the session options (resume, outputFormat, ...) to the CLI: both engines open sessions
 * alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, type AgentMessage, type QueryOptions } from '../../src/index.ts';
import { CLI_PATH } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { anthropic, place, text, transcripts } from '../session/helpers.ts';

async function collect(prompt: string, options: QueryOptions): Promise<AgentMessage[]> {
  const messages: AgentMessage[] = [];
  for await (const message of query({ prompt, options })) messages.push(message);
  return messages;
}

test('a session started in-process is resumed by the CLI engine (executable) with its history', async () => {
  const p = place();
  const server = await anthropic([text('Noted: 42.'), text('It was 42.')]);
  const options = { model: 'claude-sonnet-4-6', cwd: p.cwd, env: { ...p.env, ...server.env } };
  const first = await collect('remember 42', options);
  const sessionId = first[0]!.session_id;

  const second = await collect('what number?', { ...options, executable: CLI_PATH, resume: sessionId });
  assert.equal(second[0]!.session_id, sessionId);
  assert.equal((second.at(-1) as { result?: string }).result, 'It was 42.');
  assert.deepEqual(
    server.requests[1]!.body.messages.map((m: { role: string }) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.equal(transcripts(p.home).length, 1);
});

test('outputFormat and persistSession: false reach the CLI engine', async () => {
  const p = place();
  const script = writeScript(p.cwd, [{ text: '{"answer": 42}' }]);
  const schema = { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'] };
  const messages = await collect('answer?', {
    model: 'scripted',
    script,
    cwd: p.cwd,
    env: { ...process.env, ...p.env },
    executable: CLI_PATH,
    outputFormat: { type: 'json_schema', schema },
    persistSession: false,
  });
  assert.deepEqual((messages.at(-1) as { structured_output?: unknown }).structured_output, { answer: 42 });
  assert.deepEqual(transcripts(p.home), []);
});
