/**
 * The plain-line reader (fast-parse.ts) against bash and the grammar: on every line it accepts,
 * bash must run exactly the simple commands it found, with the same words, and where tree-sitter
 * reads the line as plain commands too, it must find the same ones. Lines are drawn from a seeded generator of
 * plain words, quotes, operators and near misses (globs, `$`, redirections, reserved words,
 * assignments), so both the accepted and the refused side are exercised.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fastAnalysis } from '../../src/tools/shell/fast-parse.ts';
import { grammarAnalysis } from '../../src/tools/shell/parse.ts';
import { random } from '../faults/engine.ts';
import { seededLine as line } from './shell-lines.ts';
import { bashRuns } from './bash-runs.ts';

test('the plain-line reader agrees with the grammar and with bash on every line it accepts (5,000 seeded lines)', async () => {
  const next = random(27);
  const accepted: Array<{ text: string; argv: string[][] }> = [];
  const wrong: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const text = line(next);
    const fast = fastAnalysis(text);
    if (!fast) continue;
    const argv = fast.commands.map((c) => c.argv);
    accepted.push({ text, argv });
    // Where the grammar reads the line as plain commands, it must see the same ones (it reads some
    // plain words as errors or assignments, `user@host:path`, `--format=%H`: more careful, not different).
    const grammar = await grammarAnalysis(text);
    if (grammar.complex.length || grammar.opaqueName) continue;
    const same =
      grammar.writes.length === 0 &&
      grammar.reads.length === 0 &&
      JSON.stringify(grammar.commands.map((c) => c.argv)) === JSON.stringify(argv) &&
      grammar.commands.every((c) => !c.globbed && !c.assignments);
    if (!same) wrong.push(`${JSON.stringify(text)}: fast ${JSON.stringify(argv)}, grammar ${JSON.stringify(grammar)}`);
  }
  const ran = bashRuns(accepted.map((a) => a.text));
  accepted.forEach(({ text, argv }, i) => {
    const expected = JSON.stringify([...new Set(argv.map((c) => JSON.stringify(c)))].sort());
    if (ran[i] !== expected) wrong.push(`${JSON.stringify(text)}: fast ${expected}, bash ${ran[i]}`);
  });
  assert.deepEqual(wrong, []);
  assert.ok(accepted.length > 300 && accepted.length < 4500, `${accepted.length} of 5000 lines were plain`);
});
