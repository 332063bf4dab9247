/**
 * The trace context a session's job carries (query({ cluster }) with telemetry): made from the `telemetry` option's
 * traceparent or TRACEPARENT, kept through Redis when well formed, dropped when not (outside data).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSessionJob } from '../../src/cluster/jobs.ts';
import { jobOf } from '../../src/sdk/cluster/options.ts';

const ID = '0b6a8a36-2f6e-4a51-9d7b-5a0d5c1e2f30';
const PARENT = '00-7bf92f3577b34da6a3ce929d0e0e4739-30f067aa0ba902ba-01';
/** The job as a worker reads it back from Redis. */
const roundTrip = (job: unknown) => parseSessionJob(JSON.parse(JSON.stringify(job)));

test('a cluster query with telemetry puts its traceparent in the job; a worker reads it back', () => {
  const job = jobOf(ID, { model: 'scripted', telemetry: { traceparent: PARENT, tracestate: 'vendor=1' } });
  assert.deepEqual(job.trace, { traceparent: PARENT, tracestate: 'vendor=1' });
  assert.deepEqual(roundTrip(job).trace, { traceparent: PARENT, tracestate: 'vendor=1' });
  assert.equal('telemetry' in job.options, false, 'the exporters are each process’s own');
});

test('TRACEPARENT is the job’s trace when telemetry is on and names none; nothing when telemetry is off', () => {
  const saved = process.env.TRACEPARENT;
  process.env.TRACEPARENT = PARENT;
  try {
    assert.deepEqual(jobOf(ID, { telemetry: true }).trace, { traceparent: PARENT });
    assert.equal(jobOf(ID, {}).trace, undefined);
    assert.equal(jobOf(ID, { telemetry: false }).trace, undefined);
  } finally {
    if (saved === undefined) delete process.env.TRACEPARENT;
    else process.env.TRACEPARENT = saved;
  }
});

test('a malformed trace in job data is left out (the prompts start their own trace), the job still runs', () => {
  for (const trace of [
    'not an object',
    { traceparent: 'nonsense' },
    { traceparent: `${PARENT}-extra` },
    { traceparent: 42 },
  ]) {
    const job = roundTrip({ sessionId: ID, options: {}, stream: {}, trace });
    assert.equal(job.trace, undefined, JSON.stringify(trace));
    assert.equal(job.sessionId, ID);
  }
  const long = roundTrip({ sessionId: ID, options: {}, trace: { traceparent: PARENT, tracestate: 'x'.repeat(600) } });
  assert.deepEqual(long.trace, { traceparent: PARENT }, 'an oversized tracestate is dropped');
});
