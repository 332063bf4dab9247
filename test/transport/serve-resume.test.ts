/** `agentpipe serve` opens sessions as stdio does: transcripts, `--resume`, and a clear error for a bad one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { anthropic, CLAUDE, place, readLines, text, transcripts } from '../session/helpers.ts';
import { converse, serveOn } from './serve-client.ts';
import { kinds, watchedCli } from './ws-helpers.ts';

test("serve writes each connection's transcript; serve --resume <id> continues it with the whole history", async () => {
  const p = place();
  const server = await anthropic([text('Noted: 42.'), text('It was 42.')]);
  const env = { ...p.env, ...server.env };

  const first = await serveOn([...CLAUDE, '--cwd', p.cwd], env);
  const one = await converse(first.url, 'remember 42');
  assert.equal(one.code, 1000);
  assert.deepEqual(kinds(one.lines), ['system/init', 'assistant', 'result']);
  const sessionId = one.lines[0]!.session_id;
  const files = transcripts(p.home);
  assert.deepEqual(
    files.map((f) => path.basename(f)),
    [`${sessionId}.jsonl`],
  );
  assert.ok(readLines(files[0]!).some((l) => l.type === 'result' && l.result === 'Noted: 42.'));
  first.cli.child.kill('SIGTERM');
  assert.equal(await first.cli.exited, 0);

  const second = await serveOn([...CLAUDE, '--cwd', p.cwd, '--resume', sessionId], env);
  const two = await converse(second.url, 'what number?');
  assert.equal(two.code, 1000);
  assert.equal(two.lines[0]!.session_id, sessionId, 'a plain resume keeps the session id');
  assert.equal(two.lines.at(-1)!.result, 'It was 42.');
  assert.deepEqual(server.requests[1]!.body.messages, [
    { role: 'user', content: 'remember 42' },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted: 42.' }] },
    { role: 'user', content: 'what number?' },
  ]);
  assert.equal(transcripts(p.home).length, 1, 'the resumed session appends to the same transcript');
  assert.ok(readLines(files[0]!).some((l) => l.type === 'result' && l.result === 'It was 42.'));
});

test('serve --resume of an unknown session: a usage error at startup, nothing served', async () => {
  const p = place();
  const cli = watchedCli(
    ['serve', '--port', '0', '--model', 'scripted', '--cwd', p.cwd, '--resume', '00000000-0000-4000-8000-000000000000'],
    p.env,
  );
  assert.equal(await cli.exited, 1);
  assert.match(
    cli.stderr(),
    /agentpipe: error: No conversation found with session ID: 00000000-0000-4000-8000-000000000000/,
  );
  assert.doesNotMatch(cli.stderr(), /listening/);
});

test('serve --no-session-persistence writes no transcript', async () => {
  const p = place();
  const { url } = await serveOn(['--model', 'scripted', '--cwd', p.cwd, '--no-session-persistence'], p.env);
  const r = await converse(url, 'hello');
  assert.equal(r.lines.at(-1)!.type, 'result');
  assert.deepEqual(transcripts(p.home), []);
});
