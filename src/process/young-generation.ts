import { saveCodeCache } from './code-cache.ts';
import { envMs } from './env-number.ts';

/**
 * Keeps V8's young generation at its starting size for a one-shot CLI run. V8 doubles the young
 * generation each time enough objects have survived its collections, and a stream of a million
 * deltas gets there however few survive each one: it reaches 64 MB, all of it resident, so a run
 * into a slow reader peaked at ~130 MB. At its starting size (1 MB a half) the same run stays near
 * 85 MB, and costs no more CPU time (measured with `npm run bench`: short-lived objects die just
 * as young in a small nursery).
 *
 * `--max-semi-space-size` would say it directly but is read only when the process starts, which
 * `bin/agentpipe.js` cannot set (a shebang with flags is not portable). The growth factor is read
 * at each growth, so setting it here takes effect. Only the CLI's own runs call this: a library
 * leaves its host's heap alone, and a long-lived server (`serve`, `worker`) keeps V8's default.
 * AGENTPIPE_YOUNG_GENERATION_DELAY_MS moves the moment (the start-up test sets it past the run,
 * so what a run loads does not depend on how busy the machine is).
 */
export function keepYoungGenerationSmall(delayMs = envMs('AGENTPIPE_YOUNG_GENERATION_DELAY_MS', 50)): void {
  // Not at once: node:v8 loads ~10 modules (~2 ms of every start-up), and a run that ends within
  // `delayMs` has not grown its young generation yet. The timer does not keep the process alive.
  setTimeout(() => {
    // The code cache of this run (bin/agentpipe.js) first: made after the flag changed, the next run would reject it.
    saveCodeCache();
    process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
  }, delayMs).unref();
}
