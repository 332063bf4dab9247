/**
 * The archive sweep, with a real `agentpipe worker` on a private Redis: a session whose worker
 * died after its run ended and before it queued the archive job (a log with an end marker, no
 * owner, no job) is archived once idle past --archive-after; a session a worker holds the lease
 * of is left alone however idle, and archived once its owner lets go.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { SessionLog, type LogMessage } from '../../src/cluster/redis.ts';
import { tempDir } from '../helpers/workspace.ts';
import { startRedis } from './redis-server.ts';
import { kill9, startWorker } from './cluster.ts';
import { assistant, init, prompt, result } from './messages.ts';

const server = await startRedis();
const log = new SessionLog({ redis: server.url });
const raw = new Redis(server.url);
after(async () => {
  await log.close();
  raw.disconnect();
});

/** A session's log as a run leaves it: a turn, then the end marker. */
async function endedSession(owner: string, leaseMs = 60_000): Promise<{ id: string; uuids: string[] }> {
  const id = randomUUID();
  assert.ok(await log.acquire(id, owner, leaseMs));
  const turn = [prompt(id, 'hello'), init(id), assistant(id, 'hi'), result(id, 'hi')];
  const end = { type: 'agentpipe_session_end', session_id: id, uuid: randomUUID(), reason: 'input ended' };
  await log.append(id, owner, [...turn, { ...end, timestamp: new Date().toISOString() } as LogMessage]);
  return { id, uuids: turn.map((m) => (m as { uuid: string }).uuid) };
}

/** Polls Redis until `check` holds (an event of the server, not a guess at time). */
async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('the sweep archives an idle session nobody owns and no job would archive; an owned one waits for its owner', async () => {
  const dir = tempDir();
  const archiveDir = path.join(dir, 'archive');
  const dead = await endedSession(randomUUID());
  // The worker that ran it died after the end marker: its lease is gone, no archive job was queued.
  await raw.del(log.keys(dead.id).owner);
  const heldBy = randomUUID();
  const held = await endedSession(heldBy);

  const worker = await startWorker(server.url, { AGENTPIPE_SWEEP_MS: '100' }, [
    ...['--archive-dir', archiveDir, '--archive-after', '300'],
  ]);
  try {
    await worker.waitFor(new RegExp(`session ${dead.id}: archived to`));
    const file = path.join(archiveDir, `${dead.id}.jsonl`);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { uuid: string });
    assert.deepEqual(
      lines.map((l) => l.uuid),
      dead.uuids,
      'the turn, archived',
    );
    assert.deepEqual(await raw.keys(`ap:{${dead.id}}:*`), [], 'its Redis keys are gone');
    assert.match(worker.stderr(), new RegExp(`sweep: session ${dead.id} is idle with no owner`));

    // Two more passes over every session: the held one, idle as long, is still there.
    const passes = Number(await raw.hget('ap:sweep', 'passes'));
    await until(async () => Number(await raw.hget('ap:sweep', 'passes')) >= passes + 2, 'two more sweep passes');
    assert.ok(await log.exists(held.id), 'a session with an owner is not archived');
    assert.ok(!existsSync(path.join(archiveDir, `${held.id}.jsonl`)));

    // Its owner lets go (without queueing the archive job): the sweep archives it.
    assert.ok(await log.release(held.id, heldBy));
    await worker.waitFor(new RegExp(`session ${held.id}: archived to`));
    assert.equal(await log.exists(held.id), false);
  } finally {
    await kill9(worker);
  }
});

test('B3: a session whose prompt awaits a takeover (its log ends in a cut turn) is never archived, by the sweep or by its archive job', async () => {
  const dir = tempDir();
  const archiveDir = path.join(dir, 'archive');
  // A worker died mid-prompt: the prompt line and the answer so far, no result, no end marker; its lease expired.
  const id = randomUUID();
  const owner = randomUUID();
  assert.ok(await log.acquire(id, owner, 60_000));
  await log.append(id, owner, [prompt(id, 'hello'), init(id), assistant(id, 'working on it')]);
  await raw.del(log.keys(id).owner);
  const worker = await startWorker(server.url, { AGENTPIPE_SWEEP_MS: '100' }, [
    ...['--archive-dir', archiveDir, '--archive-after', '300'],
  ]);
  const queue = new Queue('sessions', { connection: raw, prefix: 'agentpipe' });
  try {
    // Two whole passes over every session: not queued for archiving.
    await until(async () => Number(await raw.hget('ap:sweep', 'passes')) >= 1, 'a sweep pass');
    const passes = Number(await raw.hget('ap:sweep', 'passes'));
    await until(async () => Number(await raw.hget('ap:sweep', 'passes')) >= passes + 2, 'two more sweep passes');
    assert.doesNotMatch(worker.stderr(), new RegExp(`sweep: session ${id}`));
    // Its archive job, queued anyway (an old worker's, say), refuses too.
    await queue.add('archive', { sessionId: id }, { jobId: `archive-${id}`, removeOnComplete: false });
    await until(async () => (await queue.getJob(`archive-${id}`))?.isCompleted() ?? false, 'the archive job');
    assert.match(String((await queue.getJob(`archive-${id}`))!.returnvalue), /in flight or awaits a takeover/);
    assert.ok(await log.exists(id), 'still in Redis for the run that takes it over');
    assert.ok(!existsSync(path.join(archiveDir, `${id}.jsonl`)));
  } finally {
    await queue.close();
    await kill9(worker);
  }
});
