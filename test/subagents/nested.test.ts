/** Nested subagents through the real CLI: parent ids on every message, usage and cost summed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/workspace.ts';
import { ofType, runScripted, toolResults } from '../helpers/agent-run.ts';

const agents = {
  researcher: {
    description: 'Researches a question',
    prompt: 'You research.',
    tools: ['Task', 'Glob'],
    model: 'claude-haiku-4-5',
  },
};

// One script serves the whole session in order: main, researcher, general-purpose, ...
const turns = [
  {
    tool_calls: [
      {
        name: 'Task',
        id: 'toolu_main',
        input: { description: 'research', prompt: 'find the txt files', subagent_type: 'researcher' },
      },
    ],
    usage: { input_tokens: 10, output_tokens: 1 },
  },
  {
    tool_calls: [
      {
        name: 'Task',
        id: 'toolu_inner',
        input: { description: 'look', prompt: 'list *.txt', subagent_type: 'general-purpose' },
      },
    ],
    usage: { input_tokens: 20, output_tokens: 2 },
  },
  {
    tool_calls: [{ name: 'Glob', id: 'toolu_glob', input: { pattern: '*.txt' } }],
    usage: { input_tokens: 30, output_tokens: 3 },
  },
  { text: 'inner found a.txt', usage: { input_tokens: 40, output_tokens: 4 } },
  { text: 'researcher: a.txt', usage: { input_tokens: 50, output_tokens: 5 } },
  { text: 'final answer: a.txt', usage: { input_tokens: 60, output_tokens: 6 } },
];

test('every message carries the parent_tool_use_id of its Task; results flow back up', async () => {
  const dir = tempDir({ 'a.txt': 'a' });
  const run = await runScripted(dir, turns, ['--agents', JSON.stringify(agents)]);
  assert.equal(run.code, 0, run.stderr);
  const init = run.lines[0]!;
  assert.deepEqual(init.agents, ['general-purpose', 'researcher']);
  assert.ok(init.tools.includes('Task'));

  const conversation = run.lines.filter((l) => l.type === 'assistant' || l.type === 'user');
  const summary = conversation.map((l) => {
    const block = l.message.content[0];
    const what =
      block.type === 'tool_use'
        ? `use:${block.id}`
        : block.type === 'tool_result'
          ? `result:${block.tool_use_id}`
          : `text:${block.text}`;
    return `${l.type} ${what} <- ${l.parent_tool_use_id}`;
  });
  assert.deepEqual(summary, [
    'assistant use:toolu_main <- null',
    'user text:find the txt files <- toolu_main',
    'assistant use:toolu_inner <- toolu_main',
    'user text:list *.txt <- toolu_inner',
    'assistant use:toolu_glob <- toolu_inner',
    'user result:toolu_glob <- toolu_inner',
    'assistant text:inner found a.txt <- toolu_inner',
    'user result:toolu_inner <- toolu_main',
    'assistant text:researcher: a.txt <- toolu_main',
    'user result:toolu_main <- null',
    'assistant text:final answer: a.txt <- null',
  ]);
  const results = toolResults(run.lines);
  assert.equal(results.get('toolu_inner')!.content, 'inner found a.txt');
  assert.equal(results.get('toolu_main')!.content, 'researcher: a.txt');
  const data = results.get('toolu_main')!.line.tool_use_result;
  assert.equal(data.status, 'completed');
  assert.equal(data.agentType, 'researcher');
  // The researcher's own usage includes the nested general-purpose agent's.
  assert.deepEqual(data.usage, { input_tokens: 20 + 30 + 40 + 50, output_tokens: 2 + 3 + 4 + 5 });

  // The researcher runs on its own model; the general-purpose agent inherits the researcher's.
  const models = ofType(run.lines, 'assistant').map((l) => l.message.model);
  assert.deepEqual(models, [
    'scripted',
    'claude-haiku-4-5',
    'claude-haiku-4-5',
    'claude-haiku-4-5',
    'claude-haiku-4-5',
    'scripted',
  ]);

  const result = run.lines.at(-1)!;
  assert.equal(result.result, 'final answer: a.txt');
  assert.equal(result.usage.input_tokens, 210);
  assert.equal(result.usage.output_tokens, 21);
  assert.equal(result.modelUsage['claude-haiku-4-5'].inputTokens, 140);
  assert.equal(result.modelUsage.scripted.inputTokens, 70);
  assert.ok(result.total_cost_usd > 0);
  assert.equal(
    result.total_cost_usd,
    result.modelUsage['claude-haiku-4-5'].costUSD + result.modelUsage.scripted.costUSD,
  );
  for (const line of run.lines) assert.equal(line.session_id, init.session_id);
});

test('subagent hooks fire with the agent fields; a subagent only gets its tools', async () => {
  const dir = tempDir();
  const settings = JSON.stringify({
    hooks: {
      SubagentStart: [{ matcher: 'checker', hooks: [{ type: 'command', command: 'cat >> sub.log; echo >> sub.log' }] }],
      SubagentStop: [{ hooks: [{ type: 'command', command: 'cat >> sub.log; echo >> sub.log' }] }],
    },
  });
  const checker = { checker: { description: 'checks', prompt: 'You check.', tools: ['Read'] } };
  const script = [
    {
      tool_calls: [
        { name: 'Task', id: 'toolu_c', input: { description: 'check', prompt: 'check it', subagent_type: 'checker' } },
      ],
    },
    { tool_calls: [{ name: 'Bash', id: 'toolu_nobash', input: { command: 'echo hi' } }] },
    { text: 'checked' },
    { text: 'done' },
  ];
  const run = await runScripted(dir, script, [
    '--agents',
    JSON.stringify(checker),
    '--settings',
    settings,
    '--permission-mode',
    'bypassPermissions',
  ]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(toolResults(run.lines).get('toolu_nobash')!.content, /No such tool available: Bash/);
  const { readFileSync } = await import('node:fs');
  const log = readFileSync(`${dir}/sub.log`, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    log.map((e) => e.hook_event_name),
    ['SubagentStart', 'SubagentStop'],
  );
  assert.equal(log[0].agent_type, 'checker');
  assert.equal(log[0].agent_id, log[1].agent_id);
  assert.equal(log[1].last_assistant_message, 'checked');
});

test('an unknown subagent_type is an is_error result naming the agents; bad --agents is a usage error', async () => {
  const dir = tempDir();
  const run = await runScripted(
    dir,
    [
      {
        tool_calls: [
          { name: 'Task', id: 'toolu_x', input: { description: 'x', prompt: 'x', subagent_type: 'nobody' } },
        ],
      },
      { text: 'ok' },
    ],
    ['--agents', JSON.stringify(agents)],
  );
  assert.match(
    toolResults(run.lines).get('toolu_x')!.content,
    /Unknown subagent_type "nobody". Available: general-purpose, researcher/,
  );
  const bad = await runScripted(dir, [{ text: 'x' }], ['--agents', '{"a": {"prompt": "p"}}']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--agents: agent "a" needs a "description" and a "prompt"/);
});
