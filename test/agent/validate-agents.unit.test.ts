/** validateAgents (src/agent/task-tool.ts): agent definitions from `--agents`, the library or `initialize.agents`. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateAgents } from '../../src/agent/task-tool.ts';

test('a valid definition is kept with its tool lists and model', () => {
  const agents = validateAgents({
    reviewer: { description: 'Reviews', prompt: 'Review.', tools: ['Read'], disallowedTools: ['Bash'], model: 'm' },
  });
  assert.deepEqual(agents.reviewer, {
    description: 'Reviews',
    prompt: 'Review.',
    tools: ['Read'],
    disallowedTools: ['Bash'],
    model: 'm',
  });
});

test('malformed definitions are refused with the field named', () => {
  assert.throws(() => validateAgents([]), /agents: expected an object/);
  assert.throws(() => validateAgents({ a: null }), /agent "a" needs a "description" and a "prompt"/);
  assert.throws(() => validateAgents({ a: { description: 'd', prompt: 1 } }), /needs a "description" and a "prompt"/);
  assert.throws(
    () => validateAgents({ a: { description: 'd', prompt: 'p', tools: 'Read' } }, '--agents'),
    /--agents: agent "a": "tools" must be an array of tool names/,
  );
  assert.throws(
    () => validateAgents({ a: { description: 'd', prompt: 'p', disallowedTools: [1] } }),
    /agent "a": "disallowedTools" must be an array of tool names/,
  );
  assert.throws(() => validateAgents({ a: { description: 'd', prompt: 'p', model: 2 } }), /"model" must be a string/);
});
