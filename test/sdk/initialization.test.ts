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

  // Claude Code 2.1.332's keys.
  assert.deepEqual(Object.keys(init).sort(), [
    'account',
    'agents',
    'analytics_disabled',
    'available_output_styles',
    'capabilities',
    'claude_code_version',
    'commands',
    'current_permission_mode',
    'fast_mode_disabled_reason',
    'fast_mode_state',
    'feedback_mode',
    'hook_on_failure_supported',
    'hooks_when_unanswered_kept',
    'ide_rc_auto_enable_gate',
    'models',
    'other_hook_ask_outranks_host',
    'output_style',
    'pid',
    'remote_control_auto_connect_default',
    'remote_control_auto_enable',
    'remote_control_auto_on_by_default',
    'remote_control_available',
    'sandbox_enabled',
    'session_state',
    'user_output_styles_dir',
  ]);
  assert.equal(init.output_style, 'default');
  assert.deepEqual(init.available_output_styles, ['default']);
  // agentpipe's own commands, as Claude Code lists its /compact.
  assert.deepEqual(init.commands, [
    {
      name: 'compact',
      description: 'Free up context by summarizing the conversation so far',
      argumentHint: '<optional custom summarization instructions>',
      builtin: true,
    },
  ]);
  // The offline model can switch to no other: it lists itself (Claude Code's table is the Anthropic API's).
  assert.deepEqual(models, [
    { value: 'scripted', resolvedModel: 'scripted', displayName: 'scripted', description: 'Current model' },
  ]);
  assert.equal(account.apiKeySource, 'none');
  // The scripted model is no provider of the SDK's list: no apiProvider ("firstParty" is the Anthropic API's).
  assert.equal(account.apiProvider, undefined);
});

test('agents given to query() are listed by supportedAgents()', async () => {
  const options = sdkOptions([{ text: 'hi' }], {
    agents: { reviewer: { description: 'Reviews code', prompt: 'You review code.' } },
  });
  const agents = await supportedAgentsOf(options);
  // The built-in general-purpose subagent is listed too.
  assert.deepEqual(agents.find((a) => a.name === 'reviewer')?.description, 'Reviews code');
});
