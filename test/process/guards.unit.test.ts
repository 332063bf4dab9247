/** The shared type guards (src/process/guards.ts): what each accepts and refuses. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finite, isArray, isKeyOf, isOneOf, isRecord, str } from '../../src/process/guards.ts';

test('isRecord takes plain objects (and errors), not null, arrays or primitives', () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord(new Error('x')), true);
  for (const value of [null, undefined, [], 'a', 1, true]) assert.equal(isRecord(value), false, String(value));
});

test('isArray, str and finite narrow to what they name', () => {
  assert.equal(isArray([1, 'a']), true);
  assert.equal(isArray({ length: 0 }), false);
  assert.equal(str('a'), 'a');
  assert.equal(str(1), undefined);
  assert.equal(finite(2.5), 2.5);
  assert.equal(finite(Number.NaN), undefined);
  assert.equal(finite(Infinity), undefined);
});

test("isOneOf accepts exactly a list's members", () => {
  const modes = ['low', 'high'] as const;
  assert.equal(isOneOf(modes, 'low'), true);
  assert.equal(isOneOf(modes, 'medium'), false);
  assert.equal(isOneOf(modes, undefined), false);
  assert.equal(isOneOf([1, 2], 2), true);
  assert.equal(isOneOf([1, 2], '2'), false);
});

test("isKeyOf accepts an object's own fields, not inherited ones", () => {
  const table = { a: 1, b: 2 };
  assert.equal(isKeyOf(table, 'a'), true);
  assert.equal(isKeyOf(table, 'c'), false);
  assert.equal(isKeyOf(table, 'toString'), false);
  assert.equal(isKeyOf(table, '__proto__'), false);
});
