/** Every result subtype reachable from the core, with its exit code and text-mode line. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines, runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';

const dir = tempDir();
const scripted = (turns: unknown[], ...args: string[]) =>
  runCli(['-p', 'go', '--model', 'scripted', '--script', writeScript(dir, turns, `s${Math.random()}.json`), ...args], {
    cwd: dir,
  });

test('success from a script, with explicit usage summed per model', async () => {
  const run = await scripted(
    [
      {
        text: 'Listing.',
        tool_calls: [{ name: 'Bash', input: { command: 'echo hi' } }],
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3 },
      },
      { text: 'It printed hi.', usage: { input_tokens: 20, output_tokens: 7 } },
    ],
    '--output-format',
    'json',
  );
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.result, 'It printed hi.');
  assert.equal(result.num_turns, 2);
  assert.equal(result.usage.input_tokens, 30);
  assert.equal(result.usage.output_tokens, 12);
  assert.equal(result.usage.cache_read_input_tokens, 3);
  assert.deepEqual(result.modelUsage.scripted, {
    inputTokens: 30,
    outputTokens: 12,
    cacheReadInputTokens: 3,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    costUSD: 0,
    contextWindow: result.modelUsage.scripted.contextWindow,
    maxOutputTokens: result.modelUsage.scripted.maxOutputTokens,
    // Claude Code 2.1.332's further members.
    thinkingTokens: 0,
    cacheCreationEphemeral5mInputTokens: 0,
    cacheCreationEphemeral1hInputTokens: 0,
    canonicalModel: 'scripted',
    provider: 'scripted',
    costBasis: 'unknown',
  });
});

test('error_max_turns: text line, exit 1', async () => {
  const turns = [
    { tool_calls: [{ name: 'Bash', input: { command: 'true' } }] },
    { tool_calls: [{ name: 'Bash', input: { command: 'true' } }] },
    { text: 'never' },
  ];
  const text = await scripted(turns, '--max-turns', '2');
  assert.equal(text.code, 1);
  assert.equal(text.stdout, 'Error: Reached max turns (2)\n');
  const json = JSON.parse((await scripted(turns, '--max-turns', '2', '--output-format', 'json')).stdout);
  assert.equal(json.subtype, 'error_max_turns');
  assert.equal(json.is_error, true);
  assert.equal(json.num_turns, 3, 'the prompt and two tool results (Claude Code counts user messages, not requests)');
  assert.equal(json.terminal_reason, 'max_turns');
});

test('a provider error that is not retried ends as in Claude Code: success with is_error, its text', async () => {
  const run = await scripted(
    [{ error: { status: 400, message: 'bad request from the script' } }],
    '--output-format',
    'stream-json',
    '--verbose',
  );
  assert.equal(run.code, 1);
  const lines = parseLines(run.stdout);
  assert.deepEqual(
    lines.map((l) => l.type),
    ['system', 'assistant', 'result'],
  );
  // A 400 Claude Code has no special words for: its `unknown` error, "API Error: <status> <message>".
  assert.equal(lines[1].error, 'unknown');
  assert.equal(lines[1].message.model, '<synthetic>');
  assert.equal(lines[1].message.content[0].text, 'API Error: 400 bad request from the script');
  assert.equal(lines[2].subtype, 'success');
  assert.equal(lines[2].is_error, true);
  assert.equal(lines[2].api_error_status, 400);
  assert.equal(lines[2].result, 'API Error: 400 bad request from the script');
  assert.equal(lines[2].errors, undefined);
  const text = await scripted([{ error: { status: 400, message: 'nope' } }]);
  assert.equal(text.code, 1);
  assert.equal(text.stdout, 'API Error: 400 nope\n');
  assert.equal(text.stderr, '');
});

test('a 500 is retried with an api_retry message, then succeeds', async () => {
  const run = await scripted(
    [{ error: { status: 500, message: 'overloaded', retry_after_s: 0 } }, { text: 'recovered' }],
    '--output-format',
    'stream-json',
    '--verbose',
  );
  assert.equal(run.code, 0, run.stderr);
  const lines = parseLines(run.stdout);
  assert.deepEqual(
    lines.map((l) => l.subtype ?? l.type),
    ['init', 'api_retry', 'assistant', 'success'],
  );
  assert.equal(lines[1].error_status, 500);
  assert.equal(lines.at(-1)!.result, 'recovered');
});

test('error_max_budget_usd: stops before the tools of the turn that spent the budget', async () => {
  const priced = { model: 'claude-sonnet-4-5', usage: { input_tokens: 100_000, output_tokens: 10_000 } };
  const turns = [
    { ...priced, tool_calls: [{ name: 'Bash', input: { command: 'true' } }] },
    { ...priced, tool_calls: [{ name: 'Bash', input: { command: 'true' } }] },
    { text: 'never reached' },
  ];
  const run = await scripted(turns, '--max-budget-usd', '0.5', '--output-format', 'json');
  assert.equal(run.code, 1);
  const result = JSON.parse(run.stdout);
  assert.equal(result.subtype, 'error_max_budget_usd');
  assert.equal(result.num_turns, 2, 'the prompt and the first tool result: the second call never ran');
  assert.ok(Math.abs(result.total_cost_usd - 2 * (0.3 + 0.15)) < 1e-9, String(result.total_cost_usd));
  assert.equal((await scripted(turns, '--max-budget-usd', '0.5')).stdout, 'Error: Exceeded USD budget (0.5)\n');
});

test('an empty script ends the turn with an empty answer', async () => {
  const run = await scripted([], '--output-format', 'json');
  assert.equal(run.code, 0);
  assert.equal(JSON.parse(run.stdout).result, '');
});

test('tool failures become is_error tool results, never crashes', async () => {
  const run = await scripted(
    [
      {
        tool_calls: [
          { name: 'Read', input: { file_path: 'missing.txt' } },
          { name: 'Edit', input: { file_path: 'missing.txt', old_string: 'a', new_string: 'b' } },
          { name: 'NoSuchTool', input: {} },
          { name: 'Bash', input: {} },
        ],
      },
      { text: 'done' },
    ],
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'bypassPermissions',
  );
  assert.equal(run.code, 0, run.stderr);
  const results = parseLines(run.stdout)
    .filter((l) => l.type === 'user')
    .map((l) => l.message.content[0]);
  assert.equal(results.length, 4);
  assert.ok(results.every((r) => r.is_error === true));
  assert.match(results[0].content, /File does not exist/);
  assert.match(results[2].content, /No such tool available: NoSuchTool/);
  assert.match(results[3].content, /`command` is missing/);
});

test('permissions: a write in default mode is denied and reported; allowed with --allowedTools', async () => {
  const turns = [{ tool_calls: [{ name: 'Write', input: { file_path: 'out.txt', content: 'x' } }] }, { text: 'ok' }];
  const denied = JSON.parse((await scripted(turns, '--output-format', 'json')).stdout);
  assert.equal(denied.permission_denials.length, 1);
  assert.equal(denied.permission_denials[0].tool_name, 'Write');
  assert.deepEqual(denied.permission_denials[0].tool_input, { file_path: 'out.txt', content: 'x' });
  const allowed = JSON.parse((await scripted(turns, '--output-format', 'json', '--allowedTools', 'Write')).stdout);
  assert.deepEqual(allowed.permission_denials, []);
});

test('--disallowedTools hides a tool from init', async () => {
  const run = await scripted(
    [{ text: 'hi' }],
    '--output-format',
    'stream-json',
    '--verbose',
    '--disallowedTools',
    'Bash,Write',
  );
  assert.deepEqual(parseLines(run.stdout)[0].tools, [
    'Task',
    'Edit',
    'Glob',
    'Grep',
    'NotebookEdit',
    'Read',
    'TaskCreate',
    'TaskGet',
    'TaskList',
    'TaskUpdate',
    'TodoWrite',
    'WebFetch',
  ]);
});

test('a script may be YAML', async () => {
  const file = `${dir}/turns.yaml`;
  await import('node:fs/promises').then((fs) =>
    fs.writeFile(
      file,
      [
        'turns:',
        '  - text: Let me look.',
        '    tool_calls:',
        '      - name: Bash',
        '        input: { command: echo from-yaml }',
        '  - text: |',
        '      It printed from-yaml.',
      ].join('\n'),
    ),
  );
  const run = await runCli(['-p', 'go', '--script', file, '--output-format', 'json', '--allowedTools', 'Bash'], {
    cwd: dir,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).result, 'It printed from-yaml.\n');
  await import('node:fs/promises').then((fs) => fs.writeFile(file, 'turns: [unclosed'));
  const bad = await runCli(['-p', 'go', '--script', file], { cwd: dir });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid script .*turns\.yaml/);
});
