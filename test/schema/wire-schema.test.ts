/**
 * Invariant 8: every line the CLI emits validates against the published JSON Schema, and the
 * schema is current with the wire types it is generated from.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { generateSchema } from '../../scripts/gen-schema.ts';
import { ROOT, parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const file = path.join(ROOT, 'schema/messages.schema.json');
const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(file, 'utf8')));
const dir = tempDir({ 'README.md': '# schema check\n' });

test('schema/messages.schema.json is generated from the current types (npm run schema)', () => {
  assert.equal(readFileSync(file, 'utf8'), generateSchema());
});

const scenarios: Array<[string, string[], unknown[] | undefined]> = [
  ['the demo with partial messages', ['--include-partial-messages'], undefined],
  [
    'a retried 500, thinking and a tool error',
    ['--permission-mode', 'bypassPermissions'],
    [
      { error: { status: 500, message: 'flaky', retry_after_s: 0 } },
      { thinking: 'hm', text: 'reading', tool_calls: [{ name: 'Read', input: { file_path: 'nope' } }] },
      { text: 'done' },
    ],
  ],
  [
    'a denied tool and max turns',
    ['--max-turns', '1'],
    [{ tool_calls: [{ name: 'Write', input: { file_path: 'x', content: 'y' } }] }],
  ],
  ['a provider error', [], [{ error: { status: 401, message: 'no key', retry_after_s: 0 } }]],
];

for (const [name, args, turns] of scenarios) {
  test(`every emitted line validates: ${name}`, async () => {
    const script = turns ? ['--model', 'scripted', '--script', writeScript(dir, turns, `${name.length}.json`)] : [];
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--verbose', ...script, ...args], {
      cwd: dir,
    });
    const lines = parseLines(run.stdout);
    assert.ok(lines.length >= 2);
    for (const line of lines)
      assert.ok(
        validate(line),
        `${JSON.stringify(line).slice(0, 200)}\n${JSON.stringify(validate.errors?.slice(0, 3))}`,
      );
  });
}
