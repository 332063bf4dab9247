/**
 * `codex exec --json`'s declared events and items: fields read leniently, the item kinds of one shape sharing a
 * schema; an event or item type outside the unions does not parse (the translator reports it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CodexExecEventSchema, CodexItemSchema } from '../../src/harness/codex/exec-events.ts';

test('turn.completed usage and item events; fields of another shape read as absent', () => {
  const done = CodexExecEventSchema.parse({
    type: 'turn.completed',
    usage: { input_tokens: 120, cached_input_tokens: 'many', output_tokens: 12 },
  });
  assert.ok(done.type === 'turn.completed');
  assert.deepEqual(
    [done.usage?.input_tokens, done.usage?.cached_input_tokens, done.usage?.output_tokens],
    [120, undefined, 12],
  );
  const started = CodexExecEventSchema.parse({ type: 'item.started', item: 'not an object' });
  assert.ok(started.type === 'item.started' && started.item === undefined);
  assert.equal(CodexExecEventSchema.safeParse({ type: 'mystery' }).success, false);
});

test('items: reasoning shares the message schema; file changes and to-dos keep their well-formed entries', () => {
  const reasoning = CodexItemSchema.parse({ type: 'reasoning', id: 'r1', text: 'Think.' });
  assert.deepEqual(reasoning.type === 'reasoning' ? [reasoning.id, reasoning.text] : [], ['r1', 'Think.']);
  const change = CodexItemSchema.parse({
    type: 'file_change',
    id: 'f1',
    status: 'completed',
    changes: [{ path: '/w/a.txt', kind: 'add' }, { path: '/w/b.txt' }, { kind: 'delete' }, 'junk'],
  });
  assert.deepEqual(change.type === 'file_change' ? change.changes : [], [
    { path: '/w/a.txt', kind: 'add' },
    { path: '/w/b.txt', kind: 'update' },
  ]);
  const todos = CodexItemSchema.parse({
    type: 'todo_list',
    id: 't1',
    items: [{ text: 'a', completed: true }, { text: 'b' }, 3],
  });
  assert.deepEqual(todos.type === 'todo_list' ? todos.items : [], [
    { text: 'a', completed: true },
    { text: 'b', completed: false },
  ]);
  const mcp = CodexItemSchema.parse({ type: 'mcp_tool_call', id: 'm1', result: { structured: 1 } });
  assert.deepEqual(
    mcp.type === 'mcp_tool_call' ? mcp.result : null,
    { structured: 1 },
    'a result without content is kept as it came',
  );
  assert.equal(CodexItemSchema.safeParse({ type: 'collab_tool_call', id: 'x' }).success, false);
});
