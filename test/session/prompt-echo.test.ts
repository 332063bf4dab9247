/**
 * One stream through one emit: the CLI prints the prompt echoes as Claude Code does with
 * `--replay-user-messages` (a prompt it runs: right after that prompt's system/init; a repeated
 * uuid: when read), the transcript keeps each prompt as its prompt line and never an echo, and
 * `auth_status` reaches the stream through the same emit but stays out of the transcript (Claude
 * Code does not write it there either).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { anthropic, CLAUDE, place, prompts, readLines, run, STREAM, STREAM_IN, transcripts } from './helpers.ts';

const U1 = '11111111-1111-4111-8111-111111111111';

test('--replay-user-messages: each run prompt is echoed right after its system/init, a repeated uuid when read; the transcript has prompt lines, no echo', async () => {
  const p = place();
  const script = writeScript(p.cwd, [{ text: 'ran 1' }, { text: 'ran 2' }]);
  const r = await run(p, [...STREAM_IN, '--script', script, '--replay-user-messages'], {
    stdin: prompts({ text: 'one', uuid: U1 }, 'two', { text: 'one again', uuid: U1 }),
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = parseLines(r.stdout);
  const echoes = lines.filter((l) => l.type === 'user' && l.isReplay);
  // When the repeated uuid is read (and so echoed) against the first prompt's start is a race.
  const repeated = echoes.filter((e) => e.message.content === 'one again');
  const ran = echoes.filter((e) => e.message.content !== 'one again');
  assert.equal(repeated.length, 1);
  assert.deepEqual(
    Object.keys(repeated[0]),
    ['type', 'message', 'session_id', 'parent_tool_use_id', 'uuid', 'isReplay'],
    'echoed when read, as Claude Code does: no timestamp',
  );
  assert.deepEqual(
    ran.map((e) => e.message.content),
    ['one', 'two'],
  );
  const others = lines.filter((l) => l !== repeated[0]);
  for (const echo of ran) {
    const at = others.indexOf(echo);
    assert.equal(others[at - 1].subtype, 'init', 'an echo follows its prompt’s system/init');
    assert.equal(others[at + 1].type, 'assistant', 'and comes before the answer');
    assert.equal(typeof echo.timestamp, 'string');
    assert.equal(echo.session_id, others[at - 1].session_id);
  }
  assert.equal(ran[0].uuid, U1);

  const [file] = transcripts(p.home);
  const saved = readLines(file);
  assert.equal(saved.filter((l) => l.isReplay).length, 0, 'no echo in the transcript');
  const promptLines = saved.filter((l) => l.agentpipe_prompt);
  assert.deepEqual(
    promptLines.map((l) => [l.uuid, l.message.content]),
    ran.map((e) => [e.uuid, e.message.content]),
    'each echo carries the uuid of its prompt line',
  );
});

test('without --replay-user-messages the stream-json output has no echo (as Claude Code)', async () => {
  const p = place();
  const script = writeScript(p.cwd, [{ text: 'ran' }]);
  const r = await run(p, [...STREAM_IN, '--script', script], { stdin: prompts({ text: 'one', uuid: U1 }) });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    parseLines(r.stdout).map((l) => l.type),
    ['system', 'assistant', 'result'],
  );
});

test('auth_status goes out on the stream, after the prompt’s system/init, and stays out of the transcript', async () => {
  const p = place();
  const server = await anthropic([
    {
      kind: 'json',
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    },
  ]);
  // The agentpipe outcome policy reports a rejected key as auth_status (Claude Code's sends none).
  const r = await run(p, [...STREAM, ...CLAUDE, '--outcome-policy', 'agentpipe', 'hi'], { env: server.env });
  assert.equal(r.code, 1);
  const lines = parseLines(r.stdout);
  const auth = lines.findIndex((l) => l.type === 'auth_status');
  assert.ok(auth > lines.findIndex((l) => l.type === 'system'), 'reported by the model request, after init');
  assert.match(lines[auth].error, /401/);
  const saved = readLines(transcripts(p.home)[0]);
  assert.equal(saved.filter((l) => l.type === 'auth_status').length, 0);
  assert.deepEqual(
    saved.filter((l) => l.type === 'result').map((l) => [l.subtype, l.is_error]),
    [['success', true]],
    'the rest of the prompt is in the transcript',
  );
});
