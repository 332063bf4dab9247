import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { promptStream, sdkOptions, supportedAgentsOf } from './helpers.ts';

test('initializationResult() and supportedModels() carry the initialize answer', async () => {
  const options = sdkOptions([{ text: 'hi' }]);
  const prompts = promptStream();
  const q = query({ prompt: prompts, options });
  const init = await q.initializationResult();
  const models = await q.supportedModels();
  const account = await q.accountInfo();
  prompts.end();
  for await (const _ of q) {
    /* drain */
  }

  assert.deepEqual(Object.keys(init).sort(), [
    'account',
    'agents',
    'available_output_styles',
    'commands',
    'models',
    'output_style',
    'pid',
  ]);
  assert.equal(init.output_style, 'default');
  assert.deepEqual(init.available_output_styles, ['default']);
  assert.deepEqual(init.commands, []);
  assert.ok(models.length > 1);
  assert.deepEqual(models[0], { value: 'scripted', displayName: 'scripted', description: 'current model' });
  for (const model of models) {
    assert.equal(typeof model.value, 'string');
    assert.equal(typeof model.displayName, 'string');
    assert.equal(typeof model.description, 'string');
  }
  assert.equal(account.apiKeySource, 'none');
});

test('agents given to query() are listed by supportedAgents()', async () => {
  const options = sdkOptions([{ text: 'hi' }], {
    agents: { reviewer: { description: 'Reviews code', prompt: 'You review code.' } },
  });
  const agents = await supportedAgentsOf(options);
  // The built-in general-purpose subagent is listed too.
  assert.deepEqual(agents.find((a) => a.name === 'reviewer')?.description, 'Reviews code');
});
