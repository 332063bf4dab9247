/**
 * Gemini CLI's declared stream-json events: each of its six types parsed with its fields read
 * leniently; a type outside the union does not parse (the translator reports it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GeminiEventSchema } from '../../src/harness/gemini-events.ts';

test('a result: its status, its error, token counts per model (a model of another shape dropped)', () => {
  const event = GeminiEventSchema.parse({
    type: 'result',
    status: 'error',
    error: { type: 'FatalError', message: 'quota' },
    stats: { input_tokens: 30, models: { 'gemini-x': { input_tokens: 20, cached: 5, output_tokens: 4 }, bad: 1 } },
  });
  assert.ok(event.type === 'result');
  assert.equal(event.status, 'error');
  assert.equal(event.error?.message, 'quota');
  assert.deepEqual(
    event.stats?.models.map(([model, c]) => [model, c.input_tokens, c.cached, c.output_tokens]),
    [['gemini-x', 20, 5, 4]],
  );
});

test('fields of another shape read as absent; an event of another type does not parse', () => {
  const use = GeminiEventSchema.parse({ type: 'tool_use', tool_name: 7, tool_id: 'call-1', parameters: 'x' });
  assert.deepEqual(use.type === 'tool_use' ? [use.tool_name, use.tool_id, use.parameters] : [], [
    undefined,
    'call-1',
    undefined,
  ]);
  const message = GeminiEventSchema.parse({ type: 'message', role: 'assistant', content: 'hi', delta: 'yes' });
  assert.deepEqual(message.type === 'message' ? [message.content, message.delta] : [], ['hi', undefined]);
  assert.equal(GeminiEventSchema.safeParse({ type: 'mystery' }).success, false);
  assert.equal(GeminiEventSchema.safeParse({ session_id: 's' }).success, false);
});
