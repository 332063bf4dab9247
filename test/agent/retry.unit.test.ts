import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENTPIPE_RETRIES, CLAUDE_CODE_RETRIES, resendableCut, retryErrorName } from '../../src/agent/retry.ts';
import { outcomePolicy, outcomePolicyFor } from '../../src/agent/outcome-policy.ts';
import { ModelError } from '../../src/model/errors.ts';

const status = (s: number, retryAfterMs?: number) => ModelError.fromStatus(s, `status ${s}`, retryAfterMs);
const reset = new ModelError({ message: 'reset', kind: 'connection' });
const stopped = new ModelError({ message: 'stop', kind: 'aborted' });

test('Claude Code 2.1.332 retries 401, 408, 409, 429, 5xx, 529 and cut connections, 10 times; no other 4xx', () => {
  const policy = CLAUDE_CODE_RETRIES;
  assert.equal(policy.defaultMaxRetries, 10);
  for (const s of [401, 408, 409, 429, 500, 502, 503, 529]) assert.equal(policy.shouldRetry(status(s)), true, `${s}`);
  for (const s of [400, 403, 404, 413, 422, 451]) assert.equal(policy.shouldRetry(status(s)), false, `${s}`);
  assert.equal(policy.shouldRetry(reset), true);
  assert.equal(policy.shouldRetry(stopped), false);
  assert.equal(policy.shouldRetry(new Error('not a model error')), false);
});

test("Claude Code's wait: the server's retry-after, else 500 ms doubling to 32 s, less up to a quarter at random", () => {
  const { delayMs } = CLAUDE_CODE_RETRIES;
  assert.equal(delayMs(status(429, 2000), 5), 2000);
  assert.equal(delayMs(status(429, 0), 5), 0);
  const none = () => 0;
  assert.deepEqual(
    [0, 1, 2, 5, 6, 9].map((attempt) => delayMs(status(500), attempt, none)),
    [500, 1000, 2000, 16_000, 32_000, 32_000],
  );
  assert.equal(
    delayMs(status(500), 0, () => 1),
    375,
  );
});

test("agentpipe's own retries (the Codex and ACP faces): 3, of 429, 5xx, 529 and cut connections; no jitter", () => {
  const policy = AGENTPIPE_RETRIES;
  assert.equal(policy.defaultMaxRetries, 3);
  for (const s of [429, 500, 502, 503, 529]) assert.equal(policy.shouldRetry(status(s)), true, `${s}`);
  for (const s of [400, 401, 403, 404, 408, 409, 413]) assert.equal(policy.shouldRetry(status(s)), false, `${s}`);
  assert.equal(policy.shouldRetry(reset), true);
  assert.equal(policy.shouldRetry(stopped), false);
  assert.deepEqual(
    [0, 1, 2, 5, 6].map((attempt) => policy.delayMs(status(500), attempt, () => 1)),
    [500, 1000, 2000, 16_000, 30_000],
  );
  assert.equal(policy.delayMs(status(429, 2000), 5), 2000);
});

test('the outcome policies: claude-code is the default and does what Claude Code does; agentpipe none of it', () => {
  assert.equal(outcomePolicy().name, 'claude-code');
  assert.deepEqual(
    [outcomePolicy('claude-code'), outcomePolicy('agentpipe')].map((p) => [
      p.retries,
      p.recoversReplies,
      p.budgetStopsBeforeTools,
      p.fillsInputDefaults,
      p.lastTextIsResult,
      p.hookContextApart,
    ]),
    [
      [CLAUDE_CODE_RETRIES, true, true, true, true, true],
      [AGENTPIPE_RETRIES, false, false, false, false, false],
    ],
  );
});

test('a session on an OpenAI-compatible provider keeps Claude Code outcomes but retries as agentpipe (no 401 retry)', () => {
  const openai = outcomePolicyFor('claude-code', 'openai-compatible');
  assert.equal(openai.retries, AGENTPIPE_RETRIES);
  assert.equal(openai.recoversReplies, true);
  assert.equal(openai.retries.shouldRetry(status(401)), false);
  assert.equal(outcomePolicyFor(undefined, 'anthropic'), outcomePolicy('claude-code'));
  assert.equal(outcomePolicyFor('agentpipe', 'openai-compatible').retries, AGENTPIPE_RETRIES);
});

test("api_retry's error names the failure as Claude Code does", () => {
  assert.deepEqual(
    [401, 408, 409, 429, 500, 529].map((s) => retryErrorName(status(s))),
    ['authentication_failed', 'server_error', 'server_error', 'rate_limit', 'server_error', 'overloaded'],
  );
});

test('a stream cut after its answer began is sent again twice (Claude Code), while nothing of it reached the client', () => {
  const cut = new ModelError({ message: 'cut', kind: 'connection', fault: 'cut' });
  const fresh = { started: true, shown: false, resent: 0 };
  assert.equal(resendableCut(CLAUDE_CODE_RETRIES, cut, fresh), cut);
  assert.equal(resendableCut(CLAUDE_CODE_RETRIES, cut, { ...fresh, resent: 1 }), cut);
  assert.equal(resendableCut(CLAUDE_CODE_RETRIES, cut, { ...fresh, resent: 2 }), undefined, 'twice at most');
  // A block ended (its assistant message was sent) or partial messages were on: the client saw some of it.
  assert.equal(resendableCut(CLAUDE_CODE_RETRIES, cut, { ...fresh, shown: true }), undefined);
  // Nothing began: the retries' business (maxRetries), not this.
  assert.equal(resendableCut(CLAUDE_CODE_RETRIES, cut, { ...fresh, started: false }), undefined);
  // A connection reset while the answer streamed is a cut too.
  assert.equal(resendableCut(CLAUDE_CODE_RETRIES, reset, fresh), reset);
  assert.equal(resendableCut(CLAUDE_CODE_RETRIES, status(500), fresh), undefined);
  // agentpipe's own policy (Codex, ACP) ends the prompt.
  assert.equal(resendableCut(AGENTPIPE_RETRIES, cut, fresh), undefined);
  assert.equal(retryErrorName(cut), 'unknown');
});
