/**
 * docs/telemetry.md's examples, run as written: the Jaeger command line (its endpoint pointed at a loopback OTLP
 * receiver standing in for Jaeger: docker is not needed) and the library example.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.ts';
import { docBlocks, runWithLauncher } from '../helpers/docs.ts';
import { tempDir } from '../helpers/workspace.ts';
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const DOC = readFileSync(path.join(ROOT, 'docs/telemetry.md'), 'utf8');

const blocks = (heading: string, lang: string) => docBlocks(DOC, 'docs/telemetry.md', heading, lang);

test('docs/telemetry.md: the Jaeger command exports the prompt’s trace over OTLP/HTTP', async () => {
  const receiver = await startOtlpReceiver();
  const [docker, command] = blocks('Send traces to a local Jaeger', 'sh');
  assert.match(docker!, /docker run .*-p 4318:4318 jaegertracing\/jaeger/);
  const line = command!.trim().replace('http://localhost:4318', receiver.url);
  assert.notEqual(line, command!.trim(), 'the command names the Jaeger endpoint');
  const result = await runWithLauncher('sh', ['-c', line], tempDir({ 'notes.txt': 'hello\n' }));
  assert.equal(result.code, 0, result.err);
  const traces = receiver.protobuf.filter((b) => b.path === '/v1/traces');
  assert.ok(traces.length > 0, 'traces arrived');
  assert.ok(traces.some((t) => t.body.includes('invoke_agent agentpipe')));
});

test('docs/telemetry.md: the library example prints the spans to its own console exporter', async () => {
  const [example] = blocks('From the library, with your own OpenTelemetry SDK', 'ts');
  // Inside the checkout, so `import 'agentpipe'` resolves to this package (its own name).
  const dir = path.join(ROOT, 'tmp', `telemetry-docs-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const file = path.join(dir, 'example.ts');
    writeFileSync(file, example!);
    const result = await runWithLauncher(process.execPath, [file], tempDir());
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /result: success/);
    assert.match(result.out, /name: 'invoke_agent agentpipe'/);
    assert.match(result.out, /'gen_ai.usage.input_tokens': \d+/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('README: Traces in Jaeger — the docker line starts Jaeger with OTLP/HTTP, the one command exports to it', async () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = /^### Traces in Jaeger\n([\s\S]*?)^##/m.exec(readme)?.[1];
  assert.ok(section, 'README.md has a section "Traces in Jaeger"');
  assert.match(section, /`docker run --rm -d -p 16686:16686 -p 4318:4318 jaegertracing\/jaeger:latest`/);
  assert.match(section, /http:\/\/localhost:16686/);
  const [command] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  assert.equal(command, 'agentpipe --otel -p "Look around"');
  // Jaeger's OTLP/HTTP port is the exporters' default endpoint (localhost:4318); here a receiver stands in for it,
  // and the scripted model for the user's.
  const receiver = await startOtlpReceiver();
  const result = await runWithLauncher('sh', ['-c', `${command} --model scripted`], tempDir(), {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_TIMEOUT: '10000', // ample on a loaded machine (the end waits 1 s by default)
  });
  assert.equal(result.code, 0, result.err);
  const traces = receiver.protobuf.filter((b) => b.path === '/v1/traces');
  assert.ok(
    traces.some((t) => t.body.includes('invoke_agent agentpipe')),
    'the prompt’s trace arrived',
  );
});
