/**
 * The archive sweep: finds sessions no archive job will ever archive (their worker died after the
 * run ended and before it queued the archive job, or the job was lost) and archives them. Each
 * worker that archives runs a step every `everyMs`; a lock in Redis lets one worker step at a
 * time, and each step looks at one SCAN page of session logs from a cursor kept in Redis, so a
 * step costs the same however many sessions there are (a pass over N sessions takes N / `count`
 * steps). A session with no owner (no lease) that had no input or output for `archiveAfterMs` gets
 * its archive job queued now (the job checks everything again before it deletes anything: a
 * session that got input meanwhile is left alone). A session whose log does not end with the end
 * marker of a run is left alone too: a prompt was in flight when its worker was lost, and the run
 * that takes it over goes on with it (issue 28 B3).
 *
 * Keys: `<prefix>:sweep` hash (`cursor`: the SCAN cursor; `passes`: complete passes so far) and
 * `<prefix>:sweep:lock` (the stepping worker's id, with an expiry).
 */
import type { Redis } from 'ioredis';
import type { SessionLog } from '../log/index.ts';

/** What a sweep needs. */
export interface SweepOptions {
  /** The worker's connection for the sweep's own keys and SCAN. */
  redis: Redis;
  log: SessionLog;
  /** The worker's id (the lock's value). */
  id: string;
  archiveAfterMs: number;
  /** Keys SCAN looks at per step. Default 200. */
  count?: number;
  /** How long a step's lock holds (ms); the interval between steps. */
  everyMs: number;
  /** When the session last had input or output (ms since the epoch). */
  lastActivity: (sessionId: string) => Promise<number>;
  /** Queues the session's archive job now (a no-op when one is queued). */
  archive: (sessionId: string) => Promise<void>;
  now?: () => number;
}

/** The outcome of one step: skipped (another worker holds the lock), or the sessions queued for archiving. */
export interface SweepStep {
  stepped: boolean;
  queued: string[];
  /** True when this step ended a pass over every session. */
  passEnded: boolean;
}

const LOG_KEY = /:\{([^{}]+)\}:log$/;

/** One step of the sweep (see the module comment). */
export async function sweepStep(o: SweepOptions): Promise<SweepStep> {
  const now = o.now ?? Date.now;
  const base = `${o.log.prefix}:sweep`;
  const locked = await o.redis.set(`${base}:lock`, o.id, 'PX', Math.max(1, Math.floor(o.everyMs)), 'NX');
  if (locked !== 'OK') return { stepped: false, queued: [], passEnded: false };
  const cursor = (await o.redis.hget(base, 'cursor')) ?? '0';
  const [next, keys] = await o.redis.scan(cursor, 'MATCH', `${o.log.prefix}:{*}:log`, 'COUNT', o.count ?? 200);
  const queued: string[] = [];
  for (const key of keys) {
    const sessionId = LOG_KEY.exec(key)?.[1];
    if (!sessionId) continue;
    try {
      if (await o.log.owner(sessionId)) continue; // a worker runs it: its run queues the archive job when it ends
      // Its run did not end (a worker was lost mid-prompt): the takeover goes on with it.
      if ((await o.log.lastEntries(sessionId, 1))[0]?.message.type !== 'agentpipe_session_end') continue;
      if (now() - (await o.lastActivity(sessionId)) < o.archiveAfterMs) continue;
      await o.archive(sessionId);
      queued.push(sessionId);
    } catch {
      // A bad id or a session deleted meanwhile: the next pass looks again.
    }
  }
  const batch = o.redis.multi().hset(base, 'cursor', next);
  if (next === '0') batch.hincrby(base, 'passes', 1);
  await batch.exec();
  return { stepped: true, queued, passEnded: next === '0' };
}
