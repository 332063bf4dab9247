/**
 * The differential suite (`npm run compat`, issue 29) as part of `npm test`: every scenario runs on
 * the real Claude Code 2.1.332 and on agentpipe against one fake Messages API. A scenario that is
 * the same must stay the same; the ones that still differ are listed in suite/known.ts (docs/compat.md
 * says why), and one of them that became the same is reported, to be taken off the list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { known } from './suite/known.ts';
import { scenarios } from './suite/scenarios/index.ts';
import { report, runSuite } from './suite/suite.ts';

// The whole suite: ~140 scenarios, each on both products (about 3 minutes on an idle 2-core machine).
const TIMEOUT = 30 * 60_000;

test(
  'differential suite: agentpipe answers as Claude Code 2.1.332 in every scenario not listed as a known difference',
  { timeout: TIMEOUT },
  async () => {
    const verdicts = await runSuite(scenarios, { concurrency: 2 });
    console.log(report(verdicts));
    const regressed = verdicts.filter((v) => !v.same && !known.has(v.scenario.name));
    const fixed = verdicts.filter((v) => v.same && known.has(v.scenario.name));
    assert.deepEqual(
      regressed.map((v) => [v.scenario.name, v.diffs]),
      [],
      'scenarios that differ from Claude Code and are not in suite/known.ts',
    );
    for (const v of fixed)
      console.log(`now the same as Claude Code, to be taken off suite/known.ts: ${v.scenario.name}`);
    const names = new Set(scenarios.map((s) => s.name));
    assert.equal(names.size, scenarios.length, 'scenario names are unique');
    assert.deepEqual(
      [...known.keys()].filter((k) => !names.has(k)),
      [],
      'known.ts names only real scenarios',
    );
  },
);
