/** The stop's state machine (src/cli/run-stop.ts) with mocked timers and clock: each signal and deadline in turn. */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { RunStop, type StopActions } from '../../src/cli/run-stop.ts';

function setup(options: { graceMs: number; killMs?: number }) {
  mock.timers.enable({ apis: ['setTimeout'] });
  let time = 0;
  const calls: string[] = [];
  const stop = new RunStop(() => undefined, { ...options, now: () => time });
  const actions: StopActions = {
    interrupt: (signal) => calls.push(`interrupt ${signal}`),
    kill: () => calls.push('kill'),
    exit: (signal) => calls.push(`exit ${signal}`),
  };
  const tick = (ms: number) => {
    time += ms;
    mock.timers.tick(ms);
  };
  return { stop, actions, calls, tick };
}

test('one signal: interrupt, then the end at the grace deadline; exit code 128 + 2', (t) => {
  t.after(() => mock.timers.reset());
  const { stop, actions, calls, tick } = setup({ graceMs: 3000 });
  stop.attach(actions);
  stop.receive('SIGINT');
  assert.deepEqual(calls, ['interrupt SIGINT']);
  assert.equal(stop.state, 'interrupting');
  assert.equal(stop.signal.aborted, true);
  tick(2999);
  assert.deepEqual(calls, ['interrupt SIGINT']);
  tick(1);
  assert.deepEqual(calls, ['interrupt SIGINT', 'exit SIGINT']);
  assert.equal(stop.exitCode, 130);
});

test('a second signal kills at once and brings the deadline closer; a third ends now, once', (t) => {
  t.after(() => mock.timers.reset());
  const { stop, actions, calls, tick } = setup({ graceMs: 60_000, killMs: 1000 });
  stop.attach(actions);
  stop.receive('SIGTERM');
  tick(100);
  stop.receive('SIGTERM');
  assert.deepEqual(calls, ['interrupt SIGTERM', 'kill']);
  tick(999);
  assert.equal(calls.length, 2);
  tick(1);
  assert.deepEqual(calls, ['interrupt SIGTERM', 'kill', 'exit SIGTERM']);
  stop.receive('SIGTERM');
  tick(60_000);
  assert.equal(calls.length, 3, 'ended once');
  assert.equal(stop.exitCode, 143);
});

test('a third signal ends before the deadline; a later deadline does nothing more', (t) => {
  t.after(() => mock.timers.reset());
  const { stop, actions, calls, tick } = setup({ graceMs: 60_000 });
  stop.attach(actions);
  for (let i = 0; i < 3; i++) stop.receive('SIGHUP');
  assert.deepEqual(calls, ['interrupt SIGHUP', 'kill', 'exit SIGHUP']);
  tick(60_000);
  assert.equal(calls.length, 3);
  assert.equal(stop.exitCode, 129);
});

test('signals before the actions are attached: the stop under way is carried out by the actions attached later', (t) => {
  t.after(() => mock.timers.reset());
  const { stop, actions, calls } = setup({ graceMs: 60_000 });
  stop.receive('SIGINT');
  stop.receive('SIGINT');
  assert.deepEqual(calls, []);
  stop.attach(actions);
  assert.deepEqual(calls, ['interrupt SIGINT', 'kill']);
  assert.equal(stop.exitCode, 130);
});

test('no signal: no exit code, no deadline', (t) => {
  t.after(() => mock.timers.reset());
  const { stop, actions, calls, tick } = setup({ graceMs: 10 });
  stop.attach(actions);
  tick(1000);
  assert.deepEqual(calls, []);
  assert.equal(stop.exitCode, undefined);
  assert.equal(stop.state, 'running');
});
