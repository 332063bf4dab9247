/**
 * `npm run compat`: the differential suite against the real Claude Code 2.1.332 (test/harness/clis).
 * Flags: `--only <substring>` (repeatable), `--twice` (run Claude Code twice per scenario and leave
 * out the scenarios where it differs from itself), `--concurrency N`, `--json <file>` (the verdicts),
 * `--dump <dir>` (each scenario's compared outcomes, `<name>.claude.json` and `<name>.agentpipe.json`).
 * Prints each difference and `N/M same` for the CLI and the SDK scenarios.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { scenarios } from './scenarios/index.ts';
import { report, runSuite } from './suite.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    twice: { type: 'boolean' },
    concurrency: { type: 'string' },
    json: { type: 'string' },
    dump: { type: 'string' },
  },
});
const chosen = scenarios.filter((s) => !values.only || values.only.some((o) => s.name.includes(o)));
const verdicts = await runSuite(chosen, {
  twice: values.twice,
  concurrency: values.concurrency ? Number(values.concurrency) : undefined,
  onVerdict: (v) => process.stderr.write(`${v.unstable ? '~' : v.same ? '✓' : '✗'} ${v.scenario.name}\n`),
});
console.log(report(verdicts));
if (values.json)
  writeFileSync(
    values.json,
    JSON.stringify(
      verdicts.map((v) => ({ name: v.scenario.name, same: v.same, unstable: v.unstable, diffs: v.diffs })),
      null,
      1,
    ),
  );
if (values.dump)
  for (const v of verdicts)
    for (const [product, outcome] of Object.entries(v.outcomes)) {
      const file = path.join(values.dump, `${v.scenario.name}.${product}.json`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(outcome, null, 1));
    }
