import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newApiId, newUuid, UUID_PATTERN } from '../../src/messages/ids.ts';

test('newUuid: RFC 4122 version 4 ids, unique across many pool refills', () => {
  const seen = new Set<string>();
  const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  // 20,000 ids draw 320,000 bytes: the 4 KiB pool is refilled about 80 times.
  for (let i = 0; i < 20_000; i++) {
    const id = newUuid();
    assert.match(id, v4);
    assert.match(id, UUID_PATTERN);
    seen.add(id);
  }
  assert.equal(seen.size, 20_000);
  // Every random hex digit takes all 16 values somewhere (a stuck byte would show here).
  const ids = [...seen];
  for (const position of [0, 7, 9, 15, 20, 35]) {
    assert.equal(new Set(ids.map((id) => id[position])).size, 16, `position ${position}`);
  }
});

test('newApiId: the Anthropic API style, 12 random bytes in base64url', () => {
  const ids = Array.from({ length: 1000 }, () => newApiId('toolu'));
  for (const id of ids) assert.match(id, /^toolu_[A-Za-z0-9_-]{16}$/);
  assert.equal(new Set(ids).size, ids.length);
  assert.match(newApiId('msg'), /^msg_/);
});
