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
import { closedPort } from '../helpers/ports.ts';

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
    // What was lost is said once, naming the collector.
    assert.deepEqual(result.stderr.split('\n').filter((l) => l.startsWith('telemetry:')).length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`^telemetry: traces and metrics not delivered(:| to) .*${url}`, 'm'));
  } finally {
    for (const res of held) res.destroy();
    server.close();
  }
});

test('--otel with no collector listening ends after a bounded wait, saying in one line that nothing was delivered', async () => {
  const dir = tempDir();
  const script = writeScript(dir, [{ text: 'Nobody listens.' }]);
  const url = `http://127.0.0.1:${await closedPort()}`;
  // No OTEL_EXPORTER_OTLP_TIMEOUT: the SDK would retry a refused connection for 10 s; the end waits 1 s at most.
  const result = await runCli(['-p', 'hi', '--model', 'scripted', '--script', script, '--otel'], {
    cwd: dir,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: url },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'Nobody listens.\n');
  assert.equal(
    result.stderr,
    `telemetry: traces and metrics not delivered: the collector at ${url} did not take them within 1000 ms ` +
      '(is the collector running? OTEL_EXPORTER_OTLP_TIMEOUT=<ms> waits longer)\n',
  );
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
