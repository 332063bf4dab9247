import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { watchStalls } from '../../src/agent/stall-watch.ts';
import { ModelError } from '../../src/model/errors.ts';

/** A source whose events the test releases one by one. */
function source() {
  const waiting: Array<(value: IteratorResult<number>) => void> = [];
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]: () => ({
      next: () => new Promise((resolve) => waiting.push(resolve)),
      return: () => Promise.resolve({ done: true, value: undefined }),
    }),
  };
  return { iterable, send: (value: number) => waiting.shift()?.({ done: false, value }) };
}

/** Mocked timers and a clock that moves with them. */
function clock() {
  mock.timers.enable({ apis: ['setTimeout'] });
  let time = 0;
  return {
    now: () => time,
    tick(ms: number) {
      time += ms;
      mock.timers.tick(ms);
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('watchStalls: time the consumer holds an event does not count; a quiet source is a stall', async (t) => {
  t.after(() => mock.timers.reset());
  const c = clock();
  const { iterable, send } = source();
  const request = new AbortController();
  const events = watchStalls(iterable, request, { firstMs: 1000, idleMs: 100, now: c.now });
  const first = events.next();
  c.tick(900); // within the first deadline
  send(1);
  assert.deepEqual(await first, { done: false, value: 1 });
  // The consumer holds the event for 5 idle deadlines: not the source's fault.
  c.tick(500);
  await turn();
  const second = events.next();
  await turn();
  c.tick(90);
  send(2);
  assert.deepEqual(await second, { done: false, value: 2 });
  // Now the source goes quiet: after the idle deadline the wait ends as a stall.
  const third = events.next();
  await turn();
  c.tick(99);
  await turn();
  assert.equal(request.signal.aborted, false);
  c.tick(1);
  await assert.rejects(third, (error: unknown) => {
    assert.ok(ModelError.isInstance(error));
    assert.equal(error.kind, 'connection');
    assert.match(error.message, /no data for 100 ms/);
    return true;
  });
  assert.equal(request.signal.aborted, true);
});

test('watchStalls: no first event within the first deadline is a stall', async (t) => {
  t.after(() => mock.timers.reset());
  const c = clock();
  const { iterable } = source();
  const request = new AbortController();
  const first = watchStalls(iterable, request, { firstMs: 1000, idleMs: 100, now: c.now }).next();
  await turn();
  c.tick(999);
  await turn();
  assert.equal(request.signal.aborted, false);
  c.tick(1);
  await assert.rejects(first, /no response within 1000 ms/);
});
