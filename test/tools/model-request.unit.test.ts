/** One builder for every model request: compaction's summary request carries thinking, effort and betas like a turn. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelRequest } from '../../src/agent/request.ts';
import type { AgentContext } from '../../src/agent/context.ts';
import { outcomePolicy } from '../../src/agent/outcome-policy.ts';

test('the request carries the context settings, thinking, effort and betas included', () => {
  const ctx = {
    model: 'claude-sonnet-4-5',
    system: 'sys',
    maxTokens: 100,
    thinkingBudgetTokens: undefined,
    thinking: { type: 'adaptive' },
    effort: 'high',
    betas: ['b1'],
    tools: [{ name: 'Read', description: 'reads', inputSchema: { type: 'object' } }],
    provider: { provider: 'anthropic' },
    policy: outcomePolicy('agentpipe'),
  } as unknown as AgentContext;
  const signal = new AbortController().signal;
  assert.deepEqual(modelRequest(ctx, [{ role: 'user', content: 'hi' }], signal), {
    model: 'claude-sonnet-4-5',
    system: 'sys',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [{ name: 'Read', description: 'reads', input_schema: { type: 'object' } }],
    maxTokens: 100,
    thinkingBudgetTokens: undefined,
    abortSignal: signal,
    thinking: { type: 'adaptive' },
    effort: 'high',
    betas: ['b1'],
  });
});

test("the claude-code policy on Anthropic's API: Claude Code's default request under the context's choices", () => {
  const ctx = {
    model: 'claude-sonnet-4-6',
    system: 'sys',
    maxTokens: 32_000,
    thinking: { type: 'disabled' },
    betas: ['b1'],
    tools: [],
    provider: { provider: 'anthropic' },
    policy: outcomePolicy('claude-code'),
    claudeRequest: { env: {} },
  } as unknown as AgentContext;
  const asked = modelRequest(ctx, [{ role: 'user', content: 'hi' }], new AbortController().signal);
  assert.deepEqual(asked.thinking, { type: 'disabled' });
  assert.equal(asked.effort, 'high');
  assert.equal(asked.betaFallback, true);
  assert.deepEqual(asked.betas?.slice(-2), ['effort-2025-11-24', 'b1']);
  // Another provider: only what the context says.
  const openai = modelRequest(
    { ...ctx, provider: { provider: 'openai-compatible' } } as AgentContext,
    [],
    asked.abortSignal,
  );
  assert.deepEqual(
    [openai.thinking, openai.effort, openai.betas, openai.betaFallback],
    [{ type: 'disabled' }, undefined, ['b1'], undefined],
  );
});
