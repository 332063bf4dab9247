/**
 * The lease keeper's states, without Redis (its log operations are stand-ins, its clock is
 * injected where a test moves time): a renewal that lands keeps it held; a FencedError loses it
 * at once; renewals that keep failing (Redis unreachable) lose it once none landed for 3/4 of the
 * lease, never before; the loss carries killAtOnce (the run's tools are SIGKILLed at once); a
 * release after an unconfirmed loss still gives the lease up, after a fenced one it does not try.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isKillAtOnce } from '../../src/process/run.ts';
import { monotonicMs } from '../../src/process/clock.ts';
import { FencedError } from '../../src/cluster/redis.ts';
import { RedisConnectionError } from '../../src/cluster/connection.ts';
import { LeaseKeeper, LeaseLostError, type LeaseOps } from '../../src/cluster/run/lease-keeper.ts';

const down = (): Promise<never> => Promise.reject(new RedisConnectionError('Redis at redis://x is unavailable'));

function keeper(ops: Partial<LeaseOps>, leaseMs: number, now?: () => number) {
  let lost: LeaseLostError | undefined;
  const lines: string[] = [];
  let resolveLost: () => void = () => undefined;
  const lostPromise = new Promise<void>((resolve) => (resolveLost = resolve));
  const k = new LeaseKeeper(
    {
      sessionId: 's1',
      leaseMs,
      ops: { renew: ops.renew ?? (() => Promise.resolve()), release: ops.release ?? (() => Promise.resolve(true)) },
      onLost: (error) => {
        lost = error;
        resolveLost();
      },
      print: (line) => lines.push(line),
      ...(now ? { now } : {}),
    },
    (now ?? monotonicMs)(),
  );
  return { k, lost: () => lost, lostPromise, lines };
}

test('renewals that land keep the lease held; check() is a renewal that lands', async () => {
  let renewals = 0;
  const { k, lost } = keeper({ renew: async () => void renewals++ }, 80);
  k.start();
  await k.check(new AbortController().signal);
  assert.equal(k.state, 'held');
  assert.ok(renewals >= 1);
  k.assertHeld();
  await k.release(1000);
  assert.equal(k.state, 'released');
  assert.equal(lost(), undefined);
});

test('a FencedError loses it at once, marked to kill the tools at once; release does not try', async () => {
  let released = 0;
  const { k, lost, lostPromise } = keeper(
    { renew: () => Promise.reject(new FencedError('s1', 'taken')), release: async () => (released++, true) },
    1000,
  );
  k.start();
  await assert.rejects(k.check(new AbortController().signal), LeaseLostError);
  await lostPromise;
  assert.equal(k.state, 'lost');
  assert.equal(lost()!.reason, 'fenced');
  assert.ok(isKillAtOnce(lost()), 'the abort reason kills process groups at once');
  assert.throws(() => k.assertHeld(), LeaseLostError);
  await k.release(1000);
  assert.equal(released, 0);
});

test('renewals that keep failing: lost once none landed for 3/4 of the lease, never before', async () => {
  const leaseMs = 400;
  const started = monotonicMs();
  const { k, lost, lostPromise, lines } = keeper({ renew: down }, leaseMs);
  k.start();
  await lostPromise;
  const after = monotonicMs() - started;
  assert.equal(k.stopAfterMs, 300);
  assert.ok(after >= 300, `lost after ${after} ms, not before 3/4 of the lease`);
  assert.equal(lost()!.reason, 'unconfirmed');
  assert.match(lost()!.message, /no lease renewal landed for 300 ms \(Redis unreachable\?\): this worker stops acting/);
  assert.ok(isKillAtOnce(lost()));
  assert.equal(lines.filter((l) => /lease renewal failed/.test(l)).length, 1, 'the failure said once');
});

test('the deadline is checked on the clock too: assertHeld() past it loses the lease', () => {
  let now = 1000;
  const { k, lost } = keeper({ renew: down }, 10_000, () => now);
  assert.doesNotThrow(() => k.assertHeld());
  now += 7499;
  assert.doesNotThrow(() => k.assertHeld());
  k.confirm(now); // a landed append sent just now moves the deadline on
  now += 7499;
  assert.doesNotThrow(() => k.assertHeld());
  now += 2;
  assert.throws(() => k.assertHeld(), /no lease renewal landed for 7500 ms/);
  assert.equal(lost()!.reason, 'unconfirmed');
  k.stop();
});

test('after an unconfirmed loss, release gives the lease up once Redis is back (bounded)', async () => {
  let reachable = false;
  let released = 0;
  const { k, lostPromise } = keeper(
    {
      renew: () => (reachable ? Promise.resolve() : down()),
      release: () => (reachable ? Promise.resolve(++released > 0) : down()),
    },
    200,
  );
  k.start();
  await lostPromise;
  reachable = true;
  await k.release(5000);
  assert.equal(released, 1);
  assert.equal(k.state, 'released');
});
