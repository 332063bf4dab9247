import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const STREAM = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--model', 'scripted'];
const user = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'user',
    message: { role: 'user', content },
    parent_tool_use_id: null,
    session_id: '',
    ...extra,
  });
const types = (lines: Array<Record<string, any>>) =>
  lines.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));

test('malformed and oversized lines get a clear stderr error each, a refused user message its error result, and the session goes on', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'still fine' }]);
  const stdin =
    [
      'this is not json',
      '[1, 2, 3]',
      '{"type":"bogus"}',
      '',
      `{"type":"user","message":{"role":"user","content":"${'x'.repeat(5000)}"}}`,
      '{"type":"user","message":{}}',
      user('hello'),
    ].join('\n') + '\n';
  const run = await runCli([...STREAM, '--script', script, '--cwd', dir], {
    stdin,
    env: { AGENTPIPE_MAX_INPUT_LINE: '1000' },
  });

  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  // A user message that cannot be read still ends in a result, so its client is not left waiting.
  assert.deepEqual(types(lines), ['result', 'result', 'system/init', 'assistant', 'result']);
  assert.deepEqual(
    lines.slice(0, 2).map((m) => [m.subtype, m.is_error, m.num_turns]),
    [
      ['error_during_execution', true, 0],
      ['error_during_execution', true, 0],
    ],
  );
  assert.match(lines[0]!.errors[0], /^input refused: line 5: a line of \d+ characters is over the limit of 1000/);
  assert.match(lines[1]!.errors[0], /^input refused: line 6: user message content must be/);
  assert.equal(lines.at(-1)!.result, 'still fine');
  const errors = run.stderr.trim().split('\n');
  assert.equal(errors.length, 5, run.stderr);
  assert.match(errors[0]!, /^agentpipe: input ignored: line 1: malformed JSON/);
  assert.match(errors[1]!, /^agentpipe: input ignored: line 2: expected a JSON object/);
  assert.match(errors[2]!, /^agentpipe: input ignored: line 3: unknown message type "bogus"/);
  assert.match(errors[3]!, /^agentpipe: input ignored: line 5: a line of \d+ characters is over the limit of 1000/);
  assert.match(errors[4]!, /^agentpipe: input ignored: line 6: user message content must be/);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
});

test('an oversized line split over many chunks is skipped and the next line still parses', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'after the big one' }]);
  const big = `{"type":"user","message":{"role":"user","content":"${'y'.repeat(3_000_000)}"}}`;
  const run = await runCli([...STREAM, '--script', script], {
    stdin: `${big}\n${user('small')}\n`,
    env: { AGENTPIPE_MAX_INPUT_LINE: '100000' },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stderr.includes(`line 1: a line of ${big.length} characters is over the limit of 100000`), run.stderr);
  assert.equal(parseLines(run.stdout).at(-1)!.result, 'after the big one');
});

test('stdin EOF finishes every queued prompt, emits their results, then exits 0', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'one', delay_ms: 5 }, { text: 'two' }, { text: 'three' }]);
  const run = await runCli([...STREAM, '--script', script], {
    stdin: [user('a'), user('b'), user('c')].join('\n') + '\n',
  });
  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  assert.deepEqual(types(lines), Array.from({ length: 3 }, () => ['system/init', 'assistant', 'result']).flat());
  assert.deepEqual(
    lines.filter((m) => m.type === 'result').map((m) => m.result),
    ['one', 'two', 'three'],
  );
});

test('a last line without a newline before EOF is still read', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'no newline needed' }]);
  const run = await runCli([...STREAM, '--script', script], { stdin: user('hi') });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(parseLines(run.stdout).at(-1)!.result, 'no newline needed');
});

test('--replay-user-messages echoes each user message (isReplay, same uuid) and runs a repeated uuid once', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'first answer' }, { text: 'never used' }]);
  const uuid = '11111111-2222-4333-8444-555555555555';
  const stdin = [user('hi', { uuid }), user('hi', { uuid })].join('\n') + '\n';
  const run = await runCli([...STREAM, '--script', script, '--replay-user-messages'], { stdin });
  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  const replays = lines.filter((m) => m.type === 'user' && m.isReplay);
  assert.equal(replays.length, 2);
  for (const replay of replays) {
    assert.equal(replay.uuid, uuid);
    assert.equal(replay.session_id, lines.find((m) => m.type === 'result')!.session_id);
    assert.deepEqual(replay.message, { role: 'user', content: 'hi' });
  }
  assert.equal(types(lines).filter((t) => t === 'result').length, 1);
  assert.match(run.stderr, /user message 11111111-2222-4333-8444-555555555555 was already processed/);
});

test('without --replay-user-messages nothing is echoed', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'ok' }]);
  const run = await runCli([...STREAM, '--script', script], { stdin: user('hi') + '\n' });
  assert.deepEqual(types(parseLines(run.stdout)), ['system/init', 'assistant', 'result']);
});
