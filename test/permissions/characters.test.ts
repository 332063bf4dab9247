/**
 * Characters against bash: for every character of Latin-1 and Latin Extended, every Unicode space,
 * control and format character to U+FFFF, and a sample of other scripts, in the places where a
 * blank or a comment would change what runs, either the check finds the line ambiguous (it asks)
 * or its reading finds exactly the commands and words bash runs (test/permissions/bash-runs.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeShell } from '../../src/tools/shell/parse.ts';
import { bashRuns, refusedByBash } from './bash-runs.ts';
import { characterLines } from './shell-lines.ts';

test('every character either makes the line ambiguous or is read as bash reads it', async () => {
  const lines = characterLines();
  const judged: Array<{ line: string; argv: string[][] }> = [];
  let ambiguous = 0;
  for (const line of lines) {
    const analysis = await analyzeShell(line);
    // A line the check cannot read plainly asks; only plain readings must match bash.
    if (analysis.complex.length || analysis.opaqueName) {
      ambiguous++;
      continue;
    }
    // bash runs a name with a `/` as a path and `%…` as a job, not through the handler that reports.
    const argv = analysis.commands
      .map((c) => c.argv)
      .filter(([name]) => !name!.includes('/') && !name!.startsWith('%'));
    judged.push({ line, argv });
  }
  const ran = bashRuns(judged.map((j) => j.line));
  const wrong = judged.flatMap(({ line, argv }, i) => {
    const read = JSON.stringify([...new Set(argv.map((c) => JSON.stringify(c)))].sort());
    // A line bash refuses runs nothing: whatever the reading, nothing runs unjudged.
    if (read === ran[i] || (ran[i] === '[]' && refusedByBash(line))) return [];
    return [`${JSON.stringify(line)}: read ${read}, bash ran ${ran[i]}`];
  });
  assert.deepEqual(wrong, []);
  assert.ok(ambiguous > 100 && judged.length > 1000, `${ambiguous} ambiguous, ${judged.length} read plainly`);
});
