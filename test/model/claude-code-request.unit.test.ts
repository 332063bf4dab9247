/**
 * Claude Code 2.1.332's default request per model (src/model/claude-code-request.ts): each row as the suite's fake
 * API recorded Claude Code's request (docs/compat.md), and the user's own choices over it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BETAS, claudeCodeRequest, type RequestChoices } from '../../src/model/claude-code-request.ts';

const B = BETAS;
const FULL = [B.claudeCode, B.interleavedThinking, B.contextManagement, B.thinkingTokenCount, B.toolSearch];
const CLEAR = { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] };
const none: RequestChoices = { env: {} };

const rows: Array<[string, ReturnType<typeof claudeCodeRequest>]> = [
  [
    'claude-sonnet-4-6',
    {
      maxTokens: 32_000,
      thinking: { type: 'adaptive', display: 'updates' },
      effort: 'high',
      betas: [...FULL, B.effort, B.thinkingDisplay],
      contextManagement: CLEAR,
      betaFallback: true,
    },
  ],
  [
    'claude-opus-4-7',
    {
      maxTokens: 64_000,
      thinking: { type: 'adaptive', display: 'updates' },
      effort: 'xhigh',
      betas: [...FULL, B.effort, B.thinkingDisplay],
      contextManagement: CLEAR,
      betaFallback: true,
    },
  ],
  [
    'claude-opus-4-5-20251101',
    {
      maxTokens: 32_000,
      thinking: { type: 'enabled', budgetTokens: 31_999, display: 'updates' },
      effort: 'high',
      betas: [...FULL, B.effort, B.thinkingDisplay],
      contextManagement: CLEAR,
      betaFallback: true,
    },
  ],
  [
    'claude-sonnet-4-20250514',
    {
      maxTokens: 32_000,
      thinking: { type: 'enabled', budgetTokens: 31_999, display: 'updates' },
      betas: [...FULL, B.thinkingDisplay],
      contextManagement: CLEAR,
      betaFallback: true,
    },
  ],
  [
    'claude-haiku-4-5',
    {
      maxTokens: 32_000,
      thinking: { type: 'enabled', budgetTokens: 31_999, display: 'updates' },
      betas: [
        B.interleavedThinking,
        B.contextManagement,
        B.claudeCode,
        B.thinkingTokenCount,
        B.toolSearch,
        B.thinkingDisplay,
      ],
      contextManagement: CLEAR,
      betaFallback: true,
    },
  ],
  ['claude-3-7-sonnet-latest', { maxTokens: 32_000, betas: [B.claudeCode], betaFallback: true }],
  [
    'claude-opus-5-5',
    {
      maxTokens: 128_000,
      thinking: { type: 'adaptive', display: 'updates' },
      effort: 'medium',
      betas: [...FULL, B.effort, B.thinkingDisplay],
      contextManagement: CLEAR,
      betaFallback: true,
    },
  ],
];

for (const [model, expected] of rows)
  test(`${model}: Claude Code 2.1.332's default request`, () => {
    assert.deepEqual(claudeCodeRequest(model, none), expected);
  });

test('an id Claude Code does not know, Claude or not, gets the default row (adaptive, high)', () => {
  for (const model of ['claude-fable', 'gpt-4o', 'claude-sonnet-4-7', 'us.anthropic.claude-sonnet-4-6'])
    assert.deepEqual(claudeCodeRequest(model, none), claudeCodeRequest('claude-sonnet-4-6', none));
});

test('--thinking disabled, --max-thinking-tokens 0, MAX_THINKING_TOKENS=0, alwaysThinkingEnabled false: no thinking', () => {
  const off = {
    maxTokens: 32_000,
    thinking: { type: 'disabled' },
    effort: 'high',
    betas: [...FULL, B.effort],
    betaFallback: true,
  };
  for (const choices of [
    { env: {}, thinking: { type: 'disabled' } },
    { env: {}, thinkingBudgetTokens: 0 },
    { env: { MAX_THINKING_TOKENS: '0' } },
    { env: {}, alwaysThinkingEnabled: false },
  ] satisfies RequestChoices[])
    assert.deepEqual(claudeCodeRequest('claude-sonnet-4-6', choices), off, JSON.stringify(choices));
});

test("the user's effort, thinking, budget and betas win; --betas come after the defaults, once", () => {
  const asked = claudeCodeRequest('claude-sonnet-4-6', {
    env: {},
    effort: 'low',
    thinking: { type: 'adaptive', display: 'summarized' },
    betas: ['x-1', B.claudeCode],
  });
  assert.equal(asked.effort, 'low');
  assert.deepEqual(asked.thinking, { type: 'adaptive', display: 'summarized' });
  assert.deepEqual(asked.betas, [...FULL, B.effort, 'x-1']);
  const budget = claudeCodeRequest('claude-3-7-sonnet-latest', { env: { MAX_THINKING_TOKENS: '4096' } });
  assert.deepEqual(budget.thinking, { type: 'enabled', budgetTokens: 4096, display: 'updates' });
});

test('CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS keeps claude-code, interleaved-thinking and effort, no display', () => {
  assert.deepEqual(claudeCodeRequest('claude-sonnet-4-6', { env: { CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: '1' } }), {
    maxTokens: 32_000,
    thinking: { type: 'adaptive' },
    effort: 'high',
    betas: [B.claudeCode, B.interleavedThinking, B.effort],
    betaFallback: true,
  });
});

// What Claude Code 2.1.332 asked the suite's fake API for (`max_tokens`, effort) with each model as the session's.
const measured: Array<[string, number, string | undefined]> = [
  ['claude-3-5-haiku-20241022', 8_192, undefined],
  ['claude-3-7-sonnet-latest', 32_000, undefined],
  ['claude-sonnet-4-5', 32_000, undefined],
  ['claude-sonnet-4-6', 32_000, 'high'],
  ['claude-haiku-4-5', 32_000, undefined],
  ['claude-opus-4-5', 32_000, 'high'],
  ['claude-opus-4-6', 64_000, 'high'],
  ['claude-opus-4-7', 64_000, 'xhigh'],
  ['claude-opus-4-8', 64_000, 'high'],
  ['claude-opus-5', 64_000, 'high'],
  ['claude-sonnet-5', 64_000, 'high'],
  ['claude-fable-5', 64_000, 'high'],
  ['claude-fable-5-0', 64_000, 'high'],
  ['claude-fable-5-1', 64_000, 'high'],
  ['claude-fable-5-2', 128_000, 'medium'],
  ['claude-opus-5-5', 128_000, 'medium'],
  ['claude-sonnet-5-5', 128_000, 'medium'],
  ['claude-sonnet-5-5-20261001', 128_000, 'medium'],
  ['claude-haiku-5-5', 128_000, 'medium'],
  ['claude-haiku-5', 32_000, 'high'],
  ['claude-mystery-9', 32_000, 'high'],
];

for (const [model, maxTokens, effort] of measured)
  test(`${model}: max_tokens ${maxTokens}, effort ${effort ?? 'none'} as Claude Code asks`, () => {
    const request = claudeCodeRequest(model, none);
    assert.equal(request.maxTokens, maxTokens);
    assert.equal(request.effort, effort);
  });

test("the user's maxTokens wins over the model's", () => {
  assert.equal(claudeCodeRequest('claude-opus-5-5', { env: {}, maxTokens: 1000 }).maxTokens, 1000);
});
