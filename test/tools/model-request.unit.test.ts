/** One builder for every model request: compaction's summary request carries thinking, effort and betas like a turn. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelRequest } from '../../src/agent/request.ts';
import type { AgentContext } from '../../src/agent/context.ts';

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
