/**
 * One trace across the cluster: a front end (`serve --redis`) and two workers on a private Redis on loopback, all
 * exporting to one OTLP receiver. The client's prompt carries its own `_meta.traceparent`; the front end's span of the
 * prompt is its child and goes with the prompt to the worker; the worker running it is killed with SIGKILL mid-turn
 * (after its first model request's span was exported, while its Bash call runs); the worker that takes the session
 * over goes on with the turn under the same front-end span. Everything waits for events (log lines, received spans,
 * messages), never for time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { otlpEnv, startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { startRedis } from '../cluster/redis-server.ts';
import { Client, eventually, kill9, startFrontEnd, startWorker, UNTIL_RELEASED } from '../cluster/cluster.ts';

const CALLER = { trace: '6bf92f3577b34da6a3ce929d0e0e4738', span: '20f067aa0ba902b9' };
/** OTLP span kinds. */
const INTERNAL = 1;
const CLIENT = 3;

const redis = await startRedis();

test('cluster: the front end, the worker killed mid-turn and the one that takes over add to the caller’s trace', async () => {
  const receiver = await startOtlpReceiver();
  const dir = tempDir();
  const ledger = path.join(dir, 'ledger.txt');
  const script = writeScript(dir, [
    {
      text: 'running it',
      tool_calls: [{ id: 'toolu_slow', name: 'Bash', input: { command: `echo ran >> ${ledger}; ${UNTIL_RELEASED}` } }],
    },
    { text: 'never sent' },
  ]);
  // Spans leave each process within 50 ms of their end: the first worker's are out before it is killed.
  const env = otlpEnv(receiver, { OTEL_METRICS_EXPORTER: 'none', OTEL_BSP_SCHEDULE_DELAY: '50' });
  const first = await startWorker(redis.url, env);
  const front = await startFrontEnd(
    redis.url,
    ['--model', 'scripted', '--script', script, '--cwd', dir, '--permission-mode', 'bypassPermissions'],
    env,
  );
  const pidOf = (span: ReceivedSpan) => span.resource['process.pid'];
  const client = new Client(front.url);
  try {
    await client.open();
    client.send(
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: 'run the slow command' },
        parent_tool_use_id: null,
        session_id: '',
        _meta: { traceparent: `00-${CALLER.trace}-${CALLER.span}-01` },
      }) + '\n',
    );
    const firstChat = await receiver.waitForSpan(
      (s) => s.name === 'chat scripted' && pidOf(s) === first.child.pid,
      "the first worker's model request",
    );
    await eventually(() => existsSync(ledger), 'the Bash call running');
    // The new owner's model (a fresh process reads the script from its start) goes on with the cut turn.
    writeScript(dir, [{ text: 'its outcome is unknown; I carry on' }]);
    const second = await startWorker(redis.url, env);
    await kill9(first);
    await client.until(() => client.results().length === 1, "the cut-off prompt's result", 40_000);
    assert.equal(client.results()[0]!.result, 'its outcome is unknown; I carry on');

    const frontSpan = await receiver.waitForSpan(
      (s) => s.name === 'invoke_agent agentpipe' && pidOf(s) === front.child.pid,
      "the front end's prompt span",
    );
    const taken = await receiver.waitForSpan(
      (s) => s.name === 'invoke_agent agentpipe' && pidOf(s) === second.child.pid,
      "the second worker's prompt span",
    );
    const secondChat = await receiver.waitForSpan(
      (s) => s.name === 'chat scripted' && pidOf(s) === second.child.pid,
      "the second worker's model request",
    );

    // The front end's span: the client's prompt handed to a worker, under the client's span; the loss an event.
    assert.equal(frontSpan.kind, CLIENT);
    assert.equal(frontSpan.traceId, CALLER.trace);
    assert.equal(frontSpan.parentSpanId, CALLER.span);
    assert.equal(frontSpan.attributes['agentpipe.result.subtype'], 'success');
    assert.ok(
      frontSpan.events.some((e) => e.name === 'agentpipe.worker_lost'),
      `a worker_lost event: ${JSON.stringify(frontSpan.events)}`,
    );
    // The worker that took over: its prompt span under the front end's (from the prompt line of the log).
    assert.equal(taken.kind, INTERNAL);
    assert.equal(taken.parentSpanId, frontSpan.spanId);
    assert.equal(secondChat.parentSpanId, taken.spanId);
    // The killed worker's request span is in the trace, under its own prompt span (which never ended, so never left).
    assert.equal(firstChat.traceId, CALLER.trace);
    assert.notEqual(firstChat.parentSpanId, frontSpan.spanId);
    // Spans from three processes, one trace.
    const inTrace = receiver.spans.filter((s) => s.traceId === CALLER.trace);
    assert.deepEqual(
      new Set(inTrace.map(pidOf)),
      new Set([front.child.pid, first.child.pid, second.child.pid]),
      'spans of the front end and both workers',
    );
    assert.deepEqual(
      receiver.spans.filter((s) => s.traceId !== CALLER.trace).map((s) => s.name),
      [],
      'no span outside the trace',
    );
    assert.equal(new Set(inTrace.map((s) => s.resource['service.instance.id'])).size, 3, 'three service instances');
    assert.deepEqual(receiver.errors, []);
    await kill9(second);
  } finally {
    writeFileSync(path.join(dir, 'release'), '');
    client.ws.close();
    await kill9(front);
  }
});
