import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isInside } from '../../src/process/paths.ts';

test('isInside: the folder itself and what is below it; not its parent, a sibling, or a name that only shares a prefix', () => {
  assert.equal(isInside('/work/repo', '/work/repo'), true);
  assert.equal(isInside('/work/repo/src/a.ts', '/work/repo'), true);
  assert.equal(isInside('/work/repo/..cache/x', '/work/repo'), true, 'a name beginning with two dots is inside');
  assert.equal(isInside('/work', '/work/repo'), false);
  assert.equal(isInside('/work/repo-other/a', '/work/repo'), false);
  assert.equal(isInside('/work/other/a', '/work/repo'), false);
  assert.equal(isInside('/', '/work/repo'), false);
});
