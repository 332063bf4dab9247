import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MAX_RETRIES, retryDelayMs, retryErrorName, shouldRetry } from '../../src/agent/retry.ts';
import { ModelError } from '../../src/model/errors.ts';

const status = (s: number, retryAfterMs?: number) => ModelError.fromStatus(s, `status ${s}`, retryAfterMs);

test('retried as Claude Code 2.1.332 retries: 401, 408, 409, 429, 5xx, 529 and cut connections; no other 4xx', () => {
  assert.equal(DEFAULT_MAX_RETRIES, 10);
  for (const s of [401, 408, 409, 429, 500, 502, 503, 529]) assert.equal(shouldRetry(status(s)), true, `${s}`);
  for (const s of [400, 403, 404, 413, 422, 451]) assert.equal(shouldRetry(status(s)), false, `${s}`);
  assert.equal(shouldRetry(new ModelError({ message: 'reset', kind: 'connection' })), true);
  assert.equal(shouldRetry(new ModelError({ message: 'stop', kind: 'aborted' })), false);
  assert.equal(shouldRetry(new Error('not a model error')), false);
});

test("the wait: the server's retry-after, else 500 ms doubling to 32 s, less up to a quarter at random", () => {
  assert.equal(retryDelayMs(status(429, 2000), 5), 2000);
  assert.equal(retryDelayMs(status(429, 0), 5), 0);
  const none = () => 0;
  assert.deepEqual(
    [0, 1, 2, 5, 6, 9].map((attempt) => retryDelayMs(status(500), attempt, none)),
    [500, 1000, 2000, 16_000, 32_000, 32_000],
  );
  assert.equal(
    retryDelayMs(status(500), 0, () => 1),
    375,
  );
});

test("api_retry's error names the failure as Claude Code does", () => {
  assert.deepEqual(
    [401, 408, 409, 429, 500, 529].map((s) => retryErrorName(status(s))),
    ['authentication_failed', 'server_error', 'server_error', 'rate_limit', 'server_error', 'overloaded'],
  );
});
