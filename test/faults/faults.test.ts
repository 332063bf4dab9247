/**
 * The fault-injection suite, a modest count in `npm test` (FAULT_RUNS, FAULT_SEED to change it);
 * `npm run faults -- --runs 2000 --seed 7` runs thousands.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check } from './engine.ts';

const runs = Number(process.env.FAULT_RUNS ?? 12);
const seed = Number(process.env.FAULT_SEED ?? 20261124);

test(`${runs} random sessions with faults keep every invariant (seed ${seed})`, async () => {
  const broken: string[] = [];
  for (let i = 0; i < runs; i += 3) {
    const batch = await Promise.all([0, 1, 2].filter((j) => i + j < runs).map((j) => check(seed + i + j)));
    broken.push(...batch.flat());
  }
  assert.deepEqual(broken, []);
});
