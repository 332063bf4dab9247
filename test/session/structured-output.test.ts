import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseLines } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { place, run, STREAM } from './helpers.ts';

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city', 'population'],
  additionalProperties: false,
};

test('--json-schema: an invalid answer is sent back with the errors, the retry validates → structured_output', async () => {
  const p = place();
  const script = writeScript(p.cwd, [
    { text: '{"city": "Paris"}' },
    { text: '```json\n{"city": "Paris", "population": 2102650}\n```' },
  ]);
  const r = await run(p, [
    ...STREAM,
    '--script',
    script,
    '--json-schema',
    JSON.stringify(SCHEMA),
    'Biggest French city?',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const lines = parseLines(r.stdout);
  const feedback = lines.find((l) => l.type === 'user' && l.isSynthetic)!;
  assert.match(feedback.message.content[0].text, /does not match the required JSON schema/);
  assert.match(feedback.message.content[0].text, /must have required property 'population'/);
  const result = lines.at(-1)!;
  assert.equal(result.subtype, 'success');
  assert.deepEqual(result.structured_output, { city: 'Paris', population: 2102650 });
  assert.equal(result.num_turns, 2);
});

test('--json-schema from a file: retries exhausted → error_max_structured_output_retries', async () => {
  const p = place();
  const schemaFile = path.join(p.cwd, 'schema.json');
  writeFileSync(schemaFile, JSON.stringify(SCHEMA));
  const script = writeScript(p.cwd, [
    { text: 'Paris' },
    { text: '{"city": 1}' },
    { text: '[]' },
    { text: '{"city": "Paris", "population": "many"}' },
  ]);
  const r = await run(p, [...STREAM, '--script', script, '--json-schema', schemaFile, 'Biggest French city?']);
  assert.equal(r.code, 1);
  const lines = parseLines(r.stdout);
  assert.equal(lines.filter((l) => l.type === 'user' && l.isSynthetic).length, 3);
  const result = lines.at(-1)!;
  assert.equal(result.subtype, 'error_max_structured_output_retries');
  assert.equal(result.is_error, true);
  assert.equal(result.num_turns, 4);
  assert.match(result.errors[0], /population must be integer/);

  const text = await run(p, ['--script', script, '--json-schema', schemaFile, 'again']);
  assert.equal(text.stdout, 'Error: Failed to provide valid structured output after maximum retries\n');
  const bad = await run(p, ['--model', 'scripted', '--json-schema', '{"type": "nonsense"}', 'x']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid JSON schema/);
});
