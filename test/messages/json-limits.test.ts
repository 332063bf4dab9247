/** The depth limit on a client's JSON: where it starts, and that any depth is safe to measure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nestedDeeper } from '../../src/messages/json-limits.ts';
import { parseInputLine, refusedFromHead } from '../../src/messages/parse.ts';
import { deepValue } from '../helpers/hostile-json.ts';

test('nestedDeeper: a value exactly at the limit passes, one level more does not; 100,000 levels are measured', () => {
  assert.equal(nestedDeeper(JSON.parse(deepValue(200)), 200), false);
  assert.equal(nestedDeeper(JSON.parse(deepValue(201)), 200), true);
  assert.equal(nestedDeeper(JSON.parse(`${'['.repeat(1e5)}${']'.repeat(1e5)}`), 200), true);
  assert.equal(nestedDeeper({ wide: Array.from({ length: 100_000 }, (_, i) => ({ i })) }, 3), false);
  assert.equal(nestedDeeper('a string', 0), false);
});

test('parseInputLine: a deep user message or control request is refused and says what it was', () => {
  const deep = deepValue(300);
  const user = parseInputLine(`{"type":"user","uuid":"u1","message":{"role":"user","content":"x"},"x":${deep}}`);
  assert.deepEqual(user, {
    ok: false,
    error: 'JSON nested deeper than 200 levels (AGENTPIPE_MAX_INPUT_DEPTH)',
    refused: { type: 'user', uuid: 'u1' },
  });
  const request = parseInputLine(`{"type":"control_request","request_id":"r1","request":{"subtype":"x","y":${deep}}}`);
  assert.deepEqual(!request.ok && request.refused, { type: 'control_request', request_id: 'r1' });
  const answer = parseInputLine(
    `{"type":"control_response","response":{"subtype":"success","request_id":"q1","response":${deep}}}`,
  );
  assert.deepEqual(!answer.ok && answer.refused, { type: 'control_response', request_id: 'q1' });
});

test('refusedFromHead: the start of a line that cannot be parsed tells a user message or a request id', () => {
  assert.deepEqual(refusedFromHead('{"type":"user","message":{"content":"cut'), { type: 'user' });
  assert.deepEqual(refusedFromHead('{"request_id":"a\\"b","type":"control_request","request":'), {
    type: 'control_request',
    request_id: 'a"b',
  });
  assert.equal(
    refusedFromHead('{"type":"control_request","request":{"subtype":"x"'),
    undefined,
    'no id: nobody to answer',
  );
  assert.equal(refusedFromHead('{"type":"keep_alive"'), undefined);
  assert.equal(refusedFromHead('not json at all'), undefined);
});
