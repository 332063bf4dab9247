/**
 * docs/permissions.md's example, run: its script and command are the doc's own code blocks
 * (marked `<!-- example: … -->`), run with the real CLI in a folder as the doc describes, and each
 * call must end as the doc's outcome table says.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseLines, ROOT, runCli } from '../helpers/cli.ts';
import { toolResults } from '../helpers/agent-run.ts';
import { tempDir } from '../helpers/workspace.ts';

const doc = readFileSync(path.join(ROOT, 'docs/permissions.md'), 'utf8');

/** The block after `<!-- example: name -->`: a fenced code block's text, or a table's lines. */
function example(name: string): string {
  const at = doc.indexOf(`<!-- example: ${name} -->`);
  assert.ok(at !== -1, `the doc has an example named ${name}`);
  const rest = doc.slice(doc.indexOf('\n', at) + 1);
  const fenced = /^```\w*\n([\s\S]*?)\n```/.exec(rest);
  return fenced ? fenced[1]! : rest.slice(0, rest.search(/\n\n|$/));
}

/** The command's words (the doc's `agentpipe …` line, continuation and quotes read as a shell would for these). */
function words(command: string): string[] {
  const line = command.replace(/\\\n\s*/g, ' ');
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

test('docs/permissions.md: the example runs as the doc says', async () => {
  const cwd = tempDir({ 'notes.txt': 'b\na\n', '.env': 'TOKEN=doc-secret\n' });
  writeFileSync(path.join(cwd, 'script.json'), example('script.json'));
  const [program, ...args] = words(example('command'));
  assert.equal(program, 'agentpipe');
  const run = await runCli(args, { cwd });
  const lines = parseLines(run.stdout);
  const result = lines.at(-1)!;
  assert.equal(result.type, 'result', run.stderr);
  const results = toolResults(lines);
  const rows = example('outcome')
    .split('\n')
    .slice(2)
    .map((row) => row.split('|').map((cell) => cell.trim()));
  assert.equal(rows.length, 5);
  for (const [, call, outcome, why] of rows) {
    const id = call!.replaceAll('`', '');
    const denial = result.permission_denials.find((d: { tool_use_id: string }) => d.tool_use_id === id);
    assert.ok(results.has(id), `${id} has a result`);
    if (outcome === 'runs') assert.equal(denial, undefined, `${id} runs`);
    else {
      assert.ok(denial, `${id} did not run`);
      const rule = /by `([^`]+)`/.exec(why!)?.[1];
      const text = JSON.stringify(results.get(id)!.content);
      if (outcome === 'denied') assert.ok(text.includes(`denied by the rule ${rule}`), text);
      else assert.doesNotMatch(text, /denied by the rule/);
    }
  }
  assert.doesNotMatch(JSON.stringify(results.get('search')!.content), /doc-secret/);
  assert.match(String(results.get('list')!.content), /notes\.txt/);
});
