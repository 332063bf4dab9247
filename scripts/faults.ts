/**
 * `npm run faults -- --runs 2000 --seed 7 [--jobs 3]`: the fault-injection suite at scale (the
 * same engine as test/faults, which runs a modest count in `npm test`). Prints each broken
 * invariant with the seed that reproduces it; exits 1 if any broke.
 */
import { parseArgs } from 'node:util';
import { check } from '../test/faults/engine.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '500' },
    seed: { type: 'string', default: String(Date.now() % 1e6) },
    jobs: { type: 'string', default: '3' },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
const jobs = Math.max(1, Number(values.jobs));
let next = 0;
let done = 0;
const broken: string[] = [];
const started = Date.now();
async function worker(): Promise<void> {
  for (let i = next++; i < runs; i = next++) {
    const found = await check(seed + i);
    for (const line of found) process.stdout.write(`BROKEN ${line}\n`);
    broken.push(...found);
    if (++done % 25 === 0)
      process.stderr.write(
        `faults: ${done}/${runs} runs, ${broken.length} broken, ${Math.round((Date.now() - started) / 1000)} s\n`,
      );
  }
}
await Promise.all(Array.from({ length: jobs }, () => worker()));
process.stdout.write(`faults: ${runs} runs from seed ${seed}: ${broken.length} broken invariants\n`);
process.exitCode = broken.length ? 1 : 0;
