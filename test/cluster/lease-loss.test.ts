/**
 * Issue 28 B1: Redis away for longer than a lease while a tool runs. Before, the run whose lease
 * expired kept its tool running while another worker ran the prompt again, and the log held no
 * record of the call. Now the call is journalled before it starts; the run that cannot renew its
 * lease stops the tool's process group (SIGKILL) once no renewal landed for 3/4 of the lease, so
 * before the lease can expire; when Redis is back the session is taken over, the call reported as
 * of unknown outcome (never run again), and the prompt goes on to its one, successful result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SessionLog } from '../../src/cluster/redis.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { processesWith } from '../helpers/processes.ts';
import { startRedis } from './redis-server.ts';
import { Client, eventually, kill9, prompt, sessionOf, startFrontEnd, startWorker, UNTIL_RELEASED } from './cluster.ts';

/** The lease of this test's workers (FAST_TAKEOVER's). */
const LEASE_MS = 4000;

test('B1: Redis away longer than a lease mid-tool: the tool is stopped before the lease can expire, journalled, reported unknown and never run twice; the prompt goes on to its success', async () => {
  const redis = await startRedis();
  const dir = tempDir();
  const ledger = path.join(dir, 'ledger.txt');
  const pidFile = path.join(dir, 'pid');
  const command = `echo "start $$" >> ${ledger}; echo $$ > ${pidFile}; ${UNTIL_RELEASED}; echo end >> ${ledger}`;
  const turns = [{ tool_calls: [{ id: 'toolu_b1', name: 'Bash', input: { command } }] }, { text: 'done' }];
  const script = writeScript(dir, turns, 'script.json', 'history');
  const workers = await Promise.all([startWorker(redis.url), startWorker(redis.url)]);
  const front = await startFrontEnd(redis.url, [
    ...['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
  ]);
  try {
    const client = new Client(front.url);
    await client.open();
    client.send(prompt('append to the ledger'));
    await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the tool running');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(processesWith(pidFile).length > 0);

    // Redis goes away (its append-only file kept) for longer than a lease.
    const stoppedAt = Date.now();
    await redis.stop();
    await eventually(() => processesWith(pidFile).length === 0, 'the tool stopped while Redis is away', 20_000);
    const killedAfter = Date.now() - stoppedAt;
    const owner = workers.find((w) => /no lease renewal landed for 3000 ms/.test(w.stderr()));
    assert.ok(owner, 'the owning worker says why it stops acting');
    assert.match(owner.stderr(), /this worker stops acting before its lease of 4000 ms can expire/);
    const left = LEASE_MS + 1000 - (Date.now() - stoppedAt);
    if (left > 0) await sleep(left); // the outage itself: longer than the lease
    await redis.start();

    await client.until(() => client.results().length === 1, 'the prompt’s result', 30_000);
    const [result] = client.results();
    assert.deepEqual([result!.subtype, result!.is_error, result!.result], ['success', false, 'done']);
    assert.equal(readFileSync(ledger, 'utf8').trim(), `start ${pid}`, 'started once, never finished, never again');
    const lost = client.messages.find((m) => m.type === 'system' && m.subtype === 'worker_lost');
    assert.deepEqual(lost?.unknown_tool_use_ids, ['toolu_b1']);

    // The log holds the call's journal line (once) and its unknown outcome: the client's result matches the log.
    const log = new SessionLog({ redis: redis.url });
    const entries = (await log.read(sessionOf(client.messages))).map((e) => e.message as Record<string, any>);
    await log.close();
    const starts = entries.filter((m) => m.type === 'agentpipe_tool_start' && m.tool_use_id === 'toolu_b1');
    assert.equal(starts.length, 1, 'journalled once before it started');
    const results = entries.filter((m) => m.type === 'user' && m.message.content[0]?.tool_use_id === 'toolu_b1');
    assert.equal(results.length, 1);
    assert.match(results[0]!.message.content[0].content, /^The outcome of this tool call is unknown/);
    assert.deepEqual(
      entries.filter((m) => m.type === 'result').map((m) => m.uuid),
      [result!.uuid],
    );
    client.send('{"type":"end_input"}\n');
    assert.equal((await client.closed).code, 1000);
    console.log(`# the tool was stopped ${killedAfter} ms after Redis went away (lease ${LEASE_MS} ms)`);
  } finally {
    writeFileSync(path.join(dir, 'release'), '');
    for (const cli of [front, ...workers]) await kill9(cli);
    await redis.stop();
  }
});
