/**
 * The stream-json input parser (checked by hand, zod kept off this path): control lines are
 * built field by field from what was checked, with every other field kept as the client sent it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInputLine } from '../../src/messages/parse.ts';
import { parseOutputLine } from '../../src/messages/output-line.ts';

const parsed = (line: unknown) => parseInputLine(JSON.stringify(line));

test('a control request keeps its request fields and any extra top-level field', () => {
  const line = { type: 'control_request', request_id: 'r1', request: { subtype: 'interrupt', extra: 1 }, x: true };
  assert.deepEqual(parsed(line), { ok: true, message: line });
  for (const bad of [
    { type: 'control_request', request: { subtype: 'interrupt' } },
    { type: 'control_request', request_id: 'r1', request: 'interrupt' },
    { type: 'control_request', request_id: 'r1', request: { subtype: 3 } },
  ]) {
    const result = parsed(bad);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.error, /control_request needs/);
  }
});

test('a control response: success with its object answer, error with its text; anything else refused', () => {
  const success = { type: 'control_response', response: { subtype: 'success', request_id: 'r1', response: { a: 1 } } };
  assert.deepEqual(parsed(success), { ok: true, message: success });
  const bare = { type: 'control_response', response: { subtype: 'success', request_id: 'r1' } };
  assert.deepEqual(parsed(bare), { ok: true, message: bare });
  const error = { type: 'control_response', response: { subtype: 'error', request_id: 'r2', error: 'no' } };
  assert.deepEqual(parsed(error), { ok: true, message: error });
  const refused = parsed({ type: 'control_response', response: { subtype: 'maybe', request_id: 'r3' } });
  assert.deepEqual(refused, {
    ok: false,
    error: 'control_response needs response.subtype (success|error) and response.request_id',
    refused: { type: 'control_response', request_id: 'r3' },
  });
});

test('a cancel request needs its id; keep_alive is bare; unknown types are named', () => {
  assert.deepEqual(parsed({ type: 'control_cancel_request', request_id: 'r1' }), {
    ok: true,
    message: { type: 'control_cancel_request', request_id: 'r1' },
  });
  assert.equal(parsed({ type: 'control_cancel_request' }).ok, false);
  assert.deepEqual(parsed({ type: 'keep_alive', n: 1 }), { ok: true, message: { type: 'keep_alive' } });
  const unknown = parsed({ type: 'telepathy' });
  assert.equal(unknown.ok ? '' : unknown.error, 'unknown message type "telepathy"');
});

test("the SDK's reader of agentpipe's output: control lines by schema, messages by their type", () => {
  const message = { type: 'assistant', session_id: 's', uuid: 'u', message: { content: [] } };
  assert.deepEqual(parseOutputLine(JSON.stringify(message)), { ok: true, line: { type: 'message', message } });
  assert.equal(parseOutputLine('{"session_id":"s"}').ok, false);
  assert.equal(parseOutputLine('{"type":"control_request","request_id":"r"}').ok, false);
});
