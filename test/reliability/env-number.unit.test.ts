/** The numbers settings read from the environment; a duration never overflows a timer. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envCount, envMs, envNumber, MAX_TIMER_MS } from '../../src/process/env-number.ts';

test('envNumber, envCount and envMs: the fallback for unset, empty, junk, zero or negative; envMs at most a timer', () => {
  const env = (value?: string) => ({ env: value === undefined ? {} : { X: value } });
  const rows: Array<[string | undefined, number, number, number]> = [
    // value, envNumber(X, 7), envCount(X, 7), envMs(X, 7)
    [undefined, 7, 7, 7],
    ['', 7, 7, 7],
    ['  ', 7, 7, 7],
    ['abc', 7, 7, 7],
    ['0', 7, 0, 7],
    ['-5', 7, 7, 7],
    ['2.5', 2.5, 7, 2.5],
    ['1500', 1500, 1500, 1500],
    [String(MAX_TIMER_MS), MAX_TIMER_MS, MAX_TIMER_MS, MAX_TIMER_MS],
    ['3000000000', 3e9, 3e9, MAX_TIMER_MS],
    ['1e300', 1e300, 1e300, MAX_TIMER_MS],
    ['Infinity', 7, 7, 7],
  ];
  for (const [value, number, count, ms] of rows) {
    assert.equal(envNumber('X', 7, env(value)), number, `envNumber ${value}`);
    assert.equal(envCount('X', 7, env(value).env), count, `envCount ${value}`);
    assert.equal(envMs('X', 7, env(value)), ms, `envMs ${value}`);
  }
  assert.equal(envNumber('X', 7, { integer: true, env: { X: '2.5' } }), 7);
});

test('a timer set from envMs does not fire at once (no TimeoutOverflowWarning)', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  let fired = false;
  const timer = setTimeout(() => (fired = true), envMs('X', 7, { env: { X: '1e12' } }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearTimeout(timer);
  process.off('warning', onWarning);
  assert.equal(fired, false);
  assert.ok(!warnings.includes('TimeoutOverflowWarning'), warnings.join());
});
