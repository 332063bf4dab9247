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
 */
export function keepYoungGenerationSmall(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}
