/**
 * Telemetry never costs the stream: a collector that never answers does not hold up the result or the exit, and a
 * malformed TRACEPARENT starts a new trace instead of failing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli } from '../helpers/cli.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { otlpEnv, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

test('a collector that never answers does not hold up the result; the run ends after the export timeout', async () => {
  const held: http.ServerResponse[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    req.resume();
    held.push(res); // never answered
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const dir = tempDir();
    const script = writeScript(dir, [{ text: 'Still here.' }]);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const result = await runCli(['-p', 'hi', '--model', 'scripted', '--script', script, '--output-format', 'json'], {
      cwd: dir,
      env: {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: url,
        OTEL_EXPORTER_OTLP_TIMEOUT: '500',
      },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as { result: string }).result, 'Still here.');
    assert.ok(requests > 0, 'the exporter tried');
  } finally {
    for (const res of held) res.destroy();
    server.close();
  }
});

test('a malformed TRACEPARENT starts a trace of its own', async () => {
  const receiver = await startOtlpReceiver();
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'New trace.' }]);
  const result = await runCli(['-p', 'hi', '--model', 'scripted', '--script', script], {
    cwd: dir,
    env: otlpEnv(receiver, { TRACEPARENT: '00-not-a-trace-01' }),
  });
  assert.equal(result.code, 0, result.stderr);
  const root = receiver.spans.find((s) => s.name === 'invoke_agent agentpipe');
  assert.ok(root, 'the prompt was traced');
  assert.equal(root.parentSpanId ?? '', '');
});
