/**
 * A worker or a `serve --redis` front end on a Redis that takes commands without a password says so
 * once at start (issue 27): anyone who can reach that Redis reads every session and can prompt them.
 * With a password, nothing is said.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFrontEnd, startWorker } from './cluster.ts';
import { startRedis } from './redis-server.ts';

const WARNING = /warning: the Redis at redis:\/\/127\.0\.0\.1:\d+ accepts commands without a password/g;

test('a worker and serve --redis on a Redis without a password warn once each; with one, they do not', async () => {
  const open = await startRedis();
  const worker = await startWorker(open.url);
  const front = await startFrontEnd(open.url, ['--model', 'scripted']);
  assert.equal(worker.stderr().match(WARNING)?.length, 1, worker.stderr());
  assert.match(worker.stderr(), /^agentpipe worker: warning/m);
  assert.equal(front.stderr().match(WARNING)?.length, 1, front.stderr());
  assert.match(front.stderr(), /^agentpipe serve: warning/m);

  const locked = await startRedis({ password: 'pw-123' });
  const quietWorker = await startWorker(locked.url);
  const quietFront = await startFrontEnd(locked.url, ['--model', 'scripted']);
  assert.doesNotMatch(quietWorker.stderr() + quietFront.stderr(), /without a password|pw-123/);
});
