/** The one sleep and retry loop (src/process/retry.ts): tries, waits, growth, abort. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atMost, retry, sleep } from '../../src/process/retry.ts';

/** A sleep that records the waits instead of waiting. */
function recorder(): { waits: number[]; sleep: (ms: number, signal?: AbortSignal) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      waits.push(ms);
    },
  };
}

test('retry: stops at the first value, with fixed waits between tries', async () => {
  const r = recorder();
  const tries: number[] = [];
  const value = await retry(
    async (n) => {
      tries.push(n);
      return n === 2 ? 'found' : undefined;
    },
    { attempts: 6, delayMs: 50, sleep: r.sleep },
  );
  assert.equal(value, 'found');
  assert.deepEqual(tries, [0, 1, 2]);
  assert.deepEqual(r.waits, [50, 50]);
});

test('retry: undefined after the last try, with no wait after it; waits grow to the cap', async () => {
  const r = recorder();
  const value = await retry(async () => undefined, {
    attempts: 5,
    delayMs: 100,
    factor: 2,
    maxDelayMs: 300,
    sleep: r.sleep,
  });
  assert.equal(value, undefined);
  assert.deepEqual(r.waits, [100, 200, 300, 300]);
});

test('retry: an abort stops the waiting; what a try throws propagates', async () => {
  const stop = new AbortController();
  stop.abort(new Error('stopped'));
  const aborted = (error: unknown) =>
    error instanceof Error && error.name === 'AbortError' && error.cause === stop.signal.reason;
  await assert.rejects(
    retry(async () => undefined, { attempts: 3, delayMs: 10, signal: stop.signal }),
    aborted,
  );
  await assert.rejects(
    retry(
      async () => {
        throw new Error('broken');
      },
      { attempts: 3, delayMs: 10 },
    ),
    /broken/,
  );
  await assert.rejects(sleep(60_000, { signal: stop.signal }), aborted);
});

test("sleep with onAbort 'resolve' ends quietly on an abort; atMost gives the value, or undefined when time is up", async () => {
  const stop = new AbortController();
  const quiet = sleep(60_000, { signal: stop.signal, onAbort: 'resolve' });
  stop.abort(new Error('stopped'));
  assert.equal(await quiet, undefined);
  // The long timer is cleared as soon as the value is there: the test does not wait for it.
  assert.equal(await atMost(Promise.resolve(5), 60_000), 5);
  assert.equal(await atMost(new Promise<number>(() => {}), 10), undefined);
  await assert.rejects(atMost(Promise.reject(new Error('failed')), 60_000), /failed/);
});
