import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { anthropic, CLAUDE, place, prompts, run, STREAM, STREAM_IN, text, toolCall, transcripts } from './helpers.ts';

const script = () => [toolCall('toolu_1', 'Bash', { command: 'echo hi' }), text('First done.'), text('Second done.')];

test('a resumed session sends the model exactly the history an uninterrupted session sends', async () => {
  // Control: both prompts in one process.
  const one = place();
  const control = await anthropic(script());
  const a = await run(one, [...STREAM_IN, ...CLAUDE], { stdin: prompts('first', 'second'), env: control.env });
  assert.equal(a.code, 0, a.stderr);
  assert.equal(control.requests.length, 3);

  // The same two prompts in two processes, the second resuming the first.
  const two = place();
  const server = await anthropic(script());
  const first = await run(two, [...STREAM, ...CLAUDE, 'first'], { env: server.env });
  assert.equal(first.code, 0, first.stderr);
  const sessionId = parseLines(first.stdout).at(-1)!.session_id;
  const second = await run(two, [...STREAM, ...CLAUDE, '--resume', sessionId, 'second'], { env: server.env });
  assert.equal(second.code, 0, second.stderr);
  const lines = parseLines(second.stdout);
  assert.equal(lines[0].session_id, sessionId, 'a plain resume keeps the session id');
  assert.equal(lines.at(-1)!.result, 'Second done.');

  assert.deepEqual(server.requests[2].body.messages, control.requests[2].body.messages);
  assert.equal(server.requests[2].body.messages.length, 5);
  assert.equal(transcripts(two.home).length, 1, 'resume appends to the same transcript');

  // As Claude Code 2.1.332: modelUsage and total_cost_usd are the session's running totals, carried over a resume;
  // model_usage_since_last_result is what the process counted since its previous result.
  const tokens = (usage: Record<string, { inputTokens: number; outputTokens: number }>) =>
    Object.values(usage).map((u) => [u.inputTokens, u.outputTokens]);
  const [oneFirst, oneSecond] = parseLines(a.stdout).filter((l) => l.type === 'result');
  const [firstResult, secondResult] = [parseLines(first.stdout).at(-1)!, lines.at(-1)!];
  assert.deepEqual(tokens(secondResult.modelUsage), tokens(oneSecond.modelUsage));
  assert.equal(secondResult.total_cost_usd, oneSecond.total_cost_usd);
  assert.ok(oneSecond.total_cost_usd > oneFirst.total_cost_usd);
  const [[inFirst, outFirst]] = tokens(firstResult.modelUsage) as [[number, number]];
  const [[inSince, outSince]] = tokens(secondResult.model_usage_since_last_result) as [[number, number]];
  assert.deepEqual(tokens(secondResult.modelUsage), [[inFirst + inSince, outFirst + outSince]]);
  assert.equal(secondResult.usage.input_tokens, inSince, "usage is the prompt's own");
});

test('--continue resumes the latest session of the folder (a new one when there is none); a missing --resume is a clear error', async () => {
  const p = place();
  const server = await anthropic([text('A'), text('B'), text('C')]);
  const first = await run(p, [...STREAM, ...CLAUDE, 'remember 42'], { env: server.env });
  assert.equal(first.code, 0, first.stderr);
  const cont = await run(p, [...STREAM, ...CLAUDE, '--continue', 'what number?'], { env: server.env });
  assert.equal(cont.code, 0, cont.stderr);
  assert.equal(parseLines(cont.stdout)[0].session_id, parseLines(first.stdout)[0].session_id);
  assert.deepEqual(server.requests[1].body.messages, [
    { role: 'user', content: 'remember 42' },
    { role: 'assistant', content: [{ type: 'text', text: 'A' }] },
    { role: 'user', content: 'what number?' },
  ]);

  const missing = await run(p, [...CLAUDE, '--resume', '00000000-0000-4000-8000-000000000000', 'hi'], {
    env: server.env,
  });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /No conversation found with session ID: 00000000-0000-4000-8000-000000000000/);
  // Nothing to continue: a new session, as Claude Code 2.1.332 starts one.
  const empty = place();
  const none = await run(empty, [...CLAUDE, '--continue', 'hi'], { env: server.env });
  assert.equal(none.code, 0, none.stderr);
  assert.notEqual(none.stdout.trim(), '');
});

test('--no-session-persistence writes nothing', async () => {
  const p = place();
  const r = await run(p, ['--model', 'scripted', '--no-session-persistence', 'hello']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(transcripts(p.home), []);
  assert.doesNotMatch(r.stderr, /not supported/);
});
