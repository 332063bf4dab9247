/**
 * A provider that stalls never hangs a run: a stream that sends nothing (API_TIMEOUT_MS), or stops
 * before any content, is retried with system/api_retry; one that stops mid-answer
 * (AGENTPIPE_STREAM_IDLE_TIMEOUT_MS) ends the turn with one clean error result.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLines } from '../helpers/cli.ts';
import { anthropic, CLAUDE, place, run, STREAM, text } from '../session/helpers.ts';
import { anthropicFrame, anthropicStart } from './fake-servers.ts';

const START = anthropicStart('msg_stall', 5, 0);
const FAST = { API_TIMEOUT_MS: '400', AGENTPIPE_STREAM_IDLE_TIMEOUT_MS: '400' };

test('nothing arrives, then headers and message_start but no content: both retried with api_retry; the third try answers', async () => {
  const p = place();
  const server = await anthropic([
    { kind: 'sse', frames: [], then: 'hang' },
    { kind: 'sse', frames: [START], then: 'hang' },
    text('at last'),
  ]);
  const started = Date.now();
  const result = await run(p, [...STREAM, ...CLAUDE, 'hello'], { env: { ...server.env, ...FAST } });
  const lines = parseLines(result.stdout);
  assert.deepEqual(
    lines.filter((l) => l.type === 'system' && l.subtype === 'api_retry').map((l) => l.attempt),
    [1, 2],
  );
  const final = lines.at(-1)!;
  assert.equal(final.type, 'result');
  assert.equal(final.subtype, 'success');
  assert.equal(final.result, 'at last');
  assert.ok(Date.now() - started < 15_000);
});

test('a stream that stops after one delta: one error result naming the stall, no hang', async () => {
  const p = place();
  const partial = [
    START,
    anthropicFrame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    anthropicFrame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
  ];
  const server = await anthropic([{ kind: 'sse', frames: partial, then: 'hang' }]);
  const result = await run(p, [...STREAM, ...CLAUDE, 'hello'], { env: { ...server.env, ...FAST } });
  const lines = parseLines(result.stdout);
  const results = lines.filter((l) => l.type === 'result');
  assert.equal(results.length, 1);
  assert.equal(results[0]!.is_error, true);
  assert.match(results[0]!.result + JSON.stringify(lines), /stalled: no data for 400 ms/);
  assert.equal(result.code, 1);
});
