/**
 * The library's `telemetry` option with the caller's own OpenTelemetry SDK: its TracerProvider and MeterProvider get
 * the spans and the metrics of an in-process `query()`, under the caller's span (`traceparent`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import { query, type ResultMessage } from '../../src/index.ts';
import { tempDir, writeScript } from '../helpers/workspace.ts';
import { scratchDir } from '../helpers/temp.ts';

process.env.AGENTPIPE_HOME ??= scratchDir('agentpipe-home-');

const traceparentOf = (span: { spanContext(): { traceId: string; spanId: string } }) =>
  `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

test('query() with the caller’s providers: spans under the caller’s span, GenAI and agentpipe metrics', async () => {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const caller = tracerProvider.getTracer('caller').startSpan('caller work');

  const dir = tempDir({ 'notes.txt': 'one\ntwo\n' });
  const script = writeScript(dir, [
    {
      tool_calls: [
        { name: 'Read', input: { file_path: 'notes.txt' } },
        { name: 'Edit', input: { file_path: 'notes.txt', old_string: 'two', new_string: 'zwei\ndrei' } },
        { name: 'Write', input: { file_path: 'new.txt', content: 'a\nb\nc\n' } },
      ],
    },
    { text: 'Edited.' },
  ]);
  let result: ResultMessage | undefined;
  for await (const message of query({
    prompt: 'edit the notes',
    options: {
      model: 'scripted',
      script,
      cwd: dir,
      permissionMode: 'acceptEdits',
      hooks: { PostToolUse: [{ matcher: 'Write', hooks: [() => Promise.resolve({})] }] },
      telemetry: { tracerProvider, meterProvider, traceparent: traceparentOf(caller) },
    },
  }))
    if (message.type === 'result') result = message;
  caller.end();
  assert.equal(result?.subtype, 'success');
  assert.equal(readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'one\nzwei\ndrei\n');

  const finished = spans.getFinishedSpans();
  const root = finished.find((s) => s.name === 'invoke_agent agentpipe')!;
  assert.equal(root.parentSpanContext?.spanId, caller.spanContext().spanId);
  assert.equal(root.spanContext().traceId, caller.spanContext().traceId);
  assert.deepEqual(
    finished.filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId).map((s) => s.name),
    ['chat scripted', 'execute_tool Read', 'execute_tool Edit', 'execute_tool Write', 'chat scripted'],
  );
  // The hook is an event of the prompt's span (its hook_response is not in the stream: no includeHookEvents).
  const hook = root.events.find((e) => e.name === 'hook');
  assert.equal(hook?.attributes?.['agentpipe.hook.event'], 'PostToolUse');
  assert.equal(hook?.attributes?.['agentpipe.hook.outcome'], 'success');

  await meterProvider.forceFlush();
  const metrics = new Map(
    metricExporter
      .getMetrics()
      .flatMap((r) => r.scopeMetrics)
      .flatMap((s) => s.metrics)
      .map((m) => [m.descriptor.name, m.dataPoints] as const),
  );
  const points = (name: string) => metrics.get(name) ?? [];
  const histogramSum = (name: string, type: string) =>
    (points(name) as Array<DataPoint<Histogram>>)
      .filter((p) => p.attributes['gen_ai.token.type'] === type)
      .reduce((n, p) => n + (p.value.sum ?? 0), 0);
  assert.equal(histogramSum('gen_ai.client.token.usage', 'input'), result.usage.input_tokens);
  assert.equal(histogramSum('gen_ai.client.token.usage', 'output'), result.usage.output_tokens);
  const durations = points('gen_ai.client.operation.duration') as Array<DataPoint<Histogram>>;
  assert.equal(
    durations.reduce((n, p) => n + p.value.count, 0),
    2,
    'one duration per model request',
  );
  const counter = (name: string, attributes: Record<string, string> = {}) =>
    (points(name) as Array<DataPoint<number>>)
      .filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
      .reduce((n, p) => n + p.value, 0);
  assert.equal(counter('agentpipe.session.count'), 1);
  assert.equal(counter('agentpipe.token.usage', { type: 'input' }), result.usage.input_tokens);
  // Edit: "two" → "zwei", "drei" (+2 -1); Write of a new file: 3 lines added.
  assert.equal(counter('agentpipe.lines_of_code.count', { type: 'added' }), 5);
  assert.equal(counter('agentpipe.lines_of_code.count', { type: 'removed' }), 1);
  assert.equal(counter('agentpipe.code_edit_tool.decision', { decision: 'accept', tool_name: 'Edit' }), 1);
  assert.equal(counter('agentpipe.code_edit_tool.decision', { decision: 'accept', tool_name: 'Write' }), 1);
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
});
