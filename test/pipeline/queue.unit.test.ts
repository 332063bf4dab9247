/** The bounded message queue. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncMessageQueue } from '../../src/pipeline/queue.ts';

test('push waits while the buffer is at its high-water mark', async () => {
  const queue = new AsyncMessageQueue<number>({ highWaterMark: 2 });
  let released = false;
  assert.equal(queue.push(1), undefined, 'room: the producer goes on without waiting');
  const wait = queue.push(2);
  assert.ok(wait, 'at the high-water mark the producer gets a promise');
  const second = wait.then(() => (released = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(released, false);
  assert.deepEqual(await queue.next(), { done: false, value: 1 });
  await second;
  assert.equal(released, true);
});

test('done drains the buffer first; error rejects after it; iteration is single-use', async () => {
  const queue = new AsyncMessageQueue<string>();
  void queue.push('a');
  queue.done();
  const seen: string[] = [];
  for await (const item of queue) seen.push(item);
  assert.deepEqual(seen, ['a']);
  assert.throws(() => queue[Symbol.asyncIterator](), /only be iterated once/);
  const failing = new AsyncMessageQueue<string>();
  void failing.push('b');
  failing.error(new Error('boom'));
  assert.deepEqual(await failing.next(), { done: false, value: 'b' });
  await assert.rejects(failing.next(), /boom/);
});

test('return() stops early, releases producers and calls onReturn', async () => {
  let returned = false;
  const queue = new AsyncMessageQueue<number>({ highWaterMark: 1, onReturn: () => (returned = true) });
  const blocked = queue.push(1);
  for await (const _ of queue) break;
  await blocked;
  assert.equal(returned, true);
  await queue.push(3);
  assert.equal(queue.size, 0);
});
