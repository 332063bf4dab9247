/**
 * Issue 28 B14: a worker whose Redis is gone never exited on SIGTERM (it kept trying to hand its
 * sessions back). Now every step of the hand-back is bounded (AGENTPIPE_HAND_BACK_MS): a worker
 * or a front end told to stop exits within its grace period plus a bounded hand-back time, Redis
 * there or not; the sessions it held go to another worker once their lease and lock expire.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { Client, eventually, kill9, prompt, startFrontEnd, startWorker, UNTIL_RELEASED } from './cluster.ts';

const HAND_BACK_MS = 1000;
const GRACE_MS = 500;

test('B14: with Redis gone, SIGTERM ends a worker holding a running prompt, and a front end, within the grace period plus the bounded hand-back', async () => {
  const redis = await startRedis();
  const dir = tempDir();
  const pidFile = path.join(dir, 'pid');
  const script = writeScript(dir, [
    { tool_calls: [{ id: 'toolu_long', name: 'Bash', input: { command: `echo $$ > ${pidFile}; ${UNTIL_RELEASED}` } }] },
    { text: 'never' },
  ]);
  const env = { AGENTPIPE_HAND_BACK_MS: String(HAND_BACK_MS) };
  const worker = await startWorker(redis.url, env, ['--grace', String(GRACE_MS)]);
  const front = await startFrontEnd(
    redis.url,
    ['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
    env,
  );
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('run it'));
    await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the tool running');
    await redis.stop();

    const stopAt = Date.now();
    worker.child.kill('SIGTERM');
    front.child.kill('SIGTERM');
    const [workerCode, frontCode] = await Promise.all([worker.exited, front.exited]);
    const tookMs = Date.now() - stopAt;
    assert.equal(workerCode, 0, worker.stderr());
    assert.equal(frontCode, 0, front.stderr());
    // Grace, then at most a few bounded steps (the run's last appends and lease, the job, the queues, the log).
    assert.ok(tookMs < GRACE_MS + 8 * HAND_BACK_MS + 5000, `both exited ${tookMs} ms after SIGTERM`);
    assert.match(worker.stderr(), /grace period of 500 ms over: interrupting the prompts still running/);
    assert.match(worker.stderr(), /not done within 1000 ms; going on without it/);
    console.log(`# worker and front end exited ${tookMs} ms after SIGTERM, Redis gone (grace ${GRACE_MS} ms)`);
  } finally {
    writeFileSync(path.join(dir, 'release'), '');
    await kill9(front);
    await kill9(worker);
  }
});
