/**
 * The Codex app-server face takes the trace context as Codex's app-server does: a `trace: { traceparent, tracestate }`
 * carrier on the JSON-RPC request's envelope (turn/start's prompt runs under it), else TRACEPARENT of the server's
 * environment. One stdio app-server exports both turns to a loopback receiver.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppServerClient } from '../codex/app-server-client.ts';
import { codexDirs, sdkEnv } from '../codex/helpers.ts';
import { otlpEnv, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const ENV_PARENT = { trace: '8bf92f3577b34da6a3ce929d0e0e473a', span: '40f067aa0ba902bb' };
const REQUEST_PARENT = { trace: '9bf92f3577b34da6a3ce929d0e0e473b', span: '50f067aa0ba902bc' };

test('app-server: turn/start’s envelope trace is the prompt span’s parent; without one, TRACEPARENT is', async () => {
  const receiver = await startOtlpReceiver();
  const dir = codexDirs('otel');
  const script = path.join(dir.home, 'script.json');
  writeFileSync(script, JSON.stringify({ turns: [{ text: 'first' }, { text: 'second' }] }));
  const client = AppServerClient.stdio({
    args: ['--model', 'scripted', '--script', script],
    cwd: dir.cwd,
    env: sdkEnv(dir.home, {
      ...otlpEnv(receiver, { OTEL_METRICS_EXPORTER: 'none' }),
      TRACEPARENT: `00-${ENV_PARENT.trace}-${ENV_PARENT.span}-01`,
    }),
  });
  await client.initialize();
  const started = await client.request('thread/start', { cwd: dir.cwd });
  assert.equal(started.error, undefined, JSON.stringify(started.error));
  const threadId = started.result.thread.id as string;
  const turn = async (text: string, envelope: Record<string, unknown> = {}) => {
    const from = client.frames.length;
    const input = [{ type: 'text', text, text_elements: [] }];
    const response = await client.request('turn/start', { threadId, input }, envelope);
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    await client.turnCompleted(response.result.turn.id as string, from);
  };
  await turn('one', {
    trace: { traceparent: `00-${REQUEST_PARENT.trace}-${REQUEST_PARENT.span}-01`, tracestate: 'a=1' },
  });
  await turn('two');
  await client.close();
  assert.deepEqual(client.schemaErrors, [], 'every frame validates against the pinned Codex schema');

  const prompts = await Promise.all(
    [REQUEST_PARENT, ENV_PARENT].map((parent) =>
      receiver.waitForSpan(
        (s) => s.name === 'invoke_agent agentpipe' && s.traceId === parent.trace,
        `the prompt span under ${parent.span}`,
      ),
    ),
  );
  assert.deepEqual(
    prompts.map((s) => s.parentSpanId),
    [REQUEST_PARENT.span, ENV_PARENT.span],
  );
  const chats = receiver.spans.filter((s) => s.name === 'chat scripted');
  assert.deepEqual(
    chats.map((c) => c.parentSpanId).sort(),
    prompts.map((p) => p.spanId).sort(),
    'each turn’s model request under its prompt span',
  );
  assert.deepEqual(receiver.errors, []);
});
