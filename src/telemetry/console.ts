/**
 * `OTEL_TRACES_EXPORTER=console` / `OTEL_METRICS_EXPORTER=console`: one JSON line per span or metric batch on stderr.
 * The SDK's console exporters write to stdout, which in agentpipe carries the message stream and nothing else.
 */
import { ExportResultCode, hrTimeToMicroseconds, type ExportResult } from '@opentelemetry/core';
import { AggregationTemporality, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

const write = (value: unknown) => process.stderr.write(`${JSON.stringify(value)}\n`);

export class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      const c = span.spanContext();
      write({
        name: span.name,
        traceId: c.traceId,
        spanId: c.spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        kind: span.kind,
        startUs: hrTimeToMicroseconds(span.startTime),
        durationUs: hrTimeToMicroseconds(span.duration),
        attributes: span.attributes,
        events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
        status: span.status,
      });
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export class StderrMetricExporter implements PushMetricExporter {
  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    for (const scope of metrics.scopeMetrics)
      for (const metric of scope.metrics)
        write({ name: metric.descriptor.name, unit: metric.descriptor.unit, dataPoints: metric.dataPoints });
    done({ code: ExportResultCode.SUCCESS });
  }

  selectAggregationTemporality(): AggregationTemporality {
    return AggregationTemporality.CUMULATIVE;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
