/** `--agent <name>`: the main thread runs as a defined agent (its prompt, tools and model). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../helpers/cli.ts';
import { CLAUDE, STREAM, STREAM_IN, anthropic, place, run, text } from '../session/helpers.ts';

const REVIEWER = {
  description: 'Reviews code',
  prompt: 'You are a strict code reviewer.',
  tools: ['Read', 'Grep'],
  model: 'claude-reviewer-model',
};

test("--agents + --agent: the request carries the agent's prompt, tools and model", async () => {
  const p = place();
  const server = await anthropic([text('Looks fine.')]);
  const args = [
    '-p',
    'review',
    ...STREAM,
    ...CLAUDE,
    '--agents',
    JSON.stringify({ reviewer: REVIEWER }),
    '--agent',
    'reviewer',
    '--append-system-prompt',
    'Be brief.',
  ];
  const { stdout, code } = await run(p, args, { env: server.env });
  assert.equal(code, 0);
  const body = server.requests[0]!.body;
  assert.equal(body.system, 'You are a strict code reviewer.\n\nBe brief.');
  assert.deepEqual(body.tools.map((t: { name: string }) => t.name).sort(), ['Grep', 'Read']);
  assert.equal(body.model, 'claude-reviewer-model');
  const init = parseLines(stdout).find((l) => l.subtype === 'init')!;
  assert.equal(init.model, 'claude-reviewer-model');
  assert.deepEqual([...init.tools].sort(), ['Grep', 'Read']);
});

test('an agent defined by the SDK client in initialize applies too', async () => {
  const p = place();
  const server = await anthropic([text('ok')]);
  const stdin =
    [
      {
        type: 'control_request',
        request_id: 'init_1',
        request: { subtype: 'initialize', systemPrompt: [''], agents: { reviewer: { ...REVIEWER, model: 'inherit' } } },
      },
      { type: 'user', message: { role: 'user', content: 'review' }, parent_tool_use_id: null, session_id: '' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n') + '\n';
  const { stdout, code } = await run(p, [...STREAM_IN, ...CLAUDE, '--agent=reviewer', '--await-initialize'], {
    stdin,
    env: server.env,
  });
  assert.equal(code, 0);
  const body = server.requests[0]!.body;
  assert.equal(body.system, 'You are a strict code reviewer.');
  assert.equal(body.model, 'claude-sonnet-4-5', '"inherit" keeps the session model');
  assert.equal(parseLines(stdout).at(-1)!.subtype, 'success');
});

test('an unknown agent ends the prompt with a clear error result', async () => {
  const p = place();
  const { stdout, code } = await run(p, ['-p', 'hi', ...STREAM, '--model', 'scripted', '--agent', 'nobody']);
  assert.equal(code, 1);
  const result = parseLines(stdout).at(-1)!;
  assert.equal(result.type, 'result');
  assert.equal(result.subtype, 'error_during_execution');
  assert.match(result.errors[0], /--agent nobody: no such agent/);
});
