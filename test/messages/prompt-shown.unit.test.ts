/** The one table of a permission prompt's shown fields, read both ways (src/messages/prompt-shown.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shownFromWire, shownToWire } from '../../src/messages/prompt-shown.ts';

test('shownToWire and shownFromWire rename every field both ways and leave absent ones out', () => {
  const shown = {
    displayName: 'Bash',
    description: 'rm -rf build',
    decisionReason: 'asks for rm',
    decisionReasonType: 'rule',
    blockedPath: '/work/build',
  };
  const wire = shownToWire(shown);
  assert.deepEqual(wire, {
    display_name: 'Bash',
    description: 'rm -rf build',
    decision_reason: 'asks for rm',
    decision_reason_type: 'rule',
    blocked_path: '/work/build',
  });
  assert.deepEqual(shownFromWire(wire), shown);
  assert.deepEqual(shownToWire({ displayName: 'Read' }), { display_name: 'Read' });
  assert.deepEqual(shownFromWire({}), {});
});

test('fields outside the table are not copied', () => {
  const request = { tool_name: 'Bash', tool_use_id: 'toolu_1', blocked_path: '/x' };
  assert.deepEqual(shownFromWire(request), { blockedPath: '/x' });
});
