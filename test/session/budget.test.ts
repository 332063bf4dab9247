import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { writeScript } from '../helpers/workspace.ts';
import { place, prompts, run, STREAM, STREAM_IN } from './helpers.ts';

// claude-sonnet-4-5: $3 / MTok input, $15 output, cache write 3.75, cache read 0.30.
const usage = {
  input_tokens: 100_000,
  output_tokens: 1_000,
  cache_creation_input_tokens: 10_000,
  cache_read_input_tokens: 20_000,
};
const COST = (100_000 * 3 + 1_000 * 15 + 10_000 * 3.75 + 20_000 * 0.3) / 1e6; // 0.3585 per request
const call = (n: number) => ({
  model: 'claude-sonnet-4-5',
  usage,
  tool_calls: [{ name: 'Glob', input: { pattern: `*${n}` } }],
});

test('--max-budget-usd stops before the tools of the turn that spent it, as Claude Code 2.1.332', async () => {
  const p = place();
  const script = writeScript(p.cwd, [call(1), call(2), call(3), { text: 'never reached' }]);
  const r = await run(p, [...STREAM, '--script', script, '--max-budget-usd', '0.5', 'go']);
  assert.equal(r.code, 1);
  const lines = parseLines(r.stdout);
  const result = lines.at(-1)!;
  assert.equal(result.subtype, 'error_max_budget_usd');
  assert.equal(result.is_error, true);
  assert.equal(
    result.num_turns,
    2,
    'the prompt and one tool result: request 1 spent 0.36 < 0.5, request 2 brought it to 0.72 and its call ' +
      'never ran',
  );
  assert.equal(result.stop_reason, 'tool_use');
  assert.equal(lines.filter((l) => l.type === 'user').length, 1, 'the second Glob did not run');
  assert.equal(lines.filter((l) => l.type === 'assistant').length, 2);
  assert.ok(Math.abs(result.total_cost_usd - 2 * COST) < 1e-9, String(result.total_cost_usd));
  const m = result.modelUsage['claude-sonnet-4-5'];
  assert.deepEqual(
    [m.inputTokens, m.outputTokens, m.cacheCreationInputTokens, m.cacheReadInputTokens],
    [200_000, 2_000, 20_000, 40_000],
  );
  assert.ok(Math.abs(m.costUSD - 2 * COST) < 1e-9);
  assert.equal(m.contextWindow, 200_000);
  assert.equal(result.usage.cache_read_input_tokens, 40_000);
  // Usage is reported live, per request, on the assistant messages.
  assert.equal(lines.find((l) => l.type === 'assistant')!.message.usage.cache_read_input_tokens, 20_000);

  const textMode = await run(p, ['--script', script, '--max-budget-usd', '0.5', 'go']);
  assert.equal(textMode.stdout, 'Error: Exceeded USD budget (0.5)\n');
});

test('--max-turns counts per prompt', async () => {
  const p = place();
  const script = writeScript(p.cwd, [call(1), { text: 'one done' }, call(2), { text: 'two done' }]);
  const r = await run(p, [...STREAM_IN, '--script', script, '--max-turns', '2'], { stdin: prompts('one', 'two') });
  assert.equal(r.code, 0, r.stderr);
  const results = parseLines(r.stdout).filter((l) => l.type === 'result');
  assert.deepEqual(
    results.map((x) => [x.subtype, x.num_turns]),
    [
      ['success', 2],
      ['success', 2],
    ],
  );
});
