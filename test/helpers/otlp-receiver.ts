/**
 * A real OTLP/HTTP receiver on loopback for telemetry tests: it takes what the real exporters POST to /v1/traces and
 * /v1/metrics, decodes the JSON encoding (`http/json`) into plain spans and metric points, and keeps protobuf bodies
 * (`http/protobuf`) as bytes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { z } from 'zod';

const anyValue: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      intValue: z.union([z.number(), z.string()]).optional(),
      doubleValue: z.number().optional(),
      boolValue: z.boolean().optional(),
      arrayValue: z.object({ values: z.array(anyValue).optional() }).optional(),
    })
    .transform((v) => {
      if (v.stringValue !== undefined) return v.stringValue;
      if (v.intValue !== undefined) return Number(v.intValue);
      if (v.doubleValue !== undefined) return v.doubleValue;
      if (v.boolValue !== undefined) return v.boolValue;
      return v.arrayValue?.values ?? [];
    }),
);
const attributes = z
  .array(z.object({ key: z.string(), value: anyValue }))
  .optional()
  .transform((list) => Object.fromEntries((list ?? []).map((a) => [a.key, a.value])));

const spanSchema = z.object({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().optional(),
  name: z.string(),
  kind: z.number(),
  startTimeUnixNano: z.union([z.string(), z.number()]).transform(Number),
  endTimeUnixNano: z.union([z.string(), z.number()]).transform(Number),
  attributes,
  events: z
    .array(z.object({ name: z.string(), attributes }))
    .optional()
    .default([]),
  status: z.object({ code: z.number().optional(), message: z.string().optional() }).optional(),
});
const tracesSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes }).optional(),
      scopeSpans: z.array(z.object({ spans: z.array(spanSchema).optional().default([]) })),
    }),
  ),
});
const pointSchema = z.object({
  attributes,
  asInt: z.union([z.string(), z.number()]).optional(),
  asDouble: z.number().optional(),
  sum: z.number().optional(),
  count: z.union([z.string(), z.number()]).optional(),
});
const metricsSchema = z.object({
  resourceMetrics: z.array(
    z.object({
      scopeMetrics: z.array(
        z.object({
          metrics: z.array(
            z.object({
              name: z.string(),
              sum: z.object({ dataPoints: z.array(pointSchema) }).optional(),
              histogram: z.object({ dataPoints: z.array(pointSchema) }).optional(),
            }),
          ),
        }),
      ),
    }),
  ),
});

export type ReceivedSpan = z.infer<typeof spanSchema> & { resource: Record<string, unknown> };
export interface ReceivedPoint {
  metric: string;
  attributes: Record<string, unknown>;
  /** A counter's value, or a histogram's sum. */
  value: number;
  /** A histogram's count. */
  count?: number;
}

export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** Raw protobuf bodies, by path. */
  protobuf: Array<{ path: string; body: Buffer }>;
  /** Requests that were not OTLP as expected (a test fails on them). */
  errors: string[];
  /**
   * Waits until the spans received so far hold one that `check` accepts (checked again at each request, never on a
   * timer); fails naming `what` and the spans got after `timeoutMs`.
   */
  waitForSpan(check: (span: ReceivedSpan) => boolean, what: string, timeoutMs?: number): Promise<ReceivedSpan>;
}

/** Starts a receiver on 127.0.0.1, port 0; closed after the test file. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const arrived = new Set<() => void>();
  const received: OtlpReceiver = {
    url: '',
    spans: [],
    points: [],
    protobuf: [],
    errors: [],
    waitForSpan: (check, what, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const look = (): void => {
          const found = received.spans.find(check);
          if (!found) return;
          stop();
          resolve(found);
        };
        const timer = setTimeout(() => {
          stop();
          const got = received.spans.map((s) => `${s.name} (pid ${String(s.resource['process.pid'])})`);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got: ${got.join(', ')}`));
        }, timeoutMs);
        const stop = (): void => {
          clearTimeout(timer);
          arrived.delete(look);
        };
        arrived.add(look);
        look();
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      try {
        if (type.startsWith('application/x-protobuf')) received.protobuf.push({ path: req.url ?? '', body });
        else if (req.url === '/v1/traces') takeTraces(received, JSON.parse(body.toString('utf8')));
        else if (req.url === '/v1/metrics') takeMetrics(received, JSON.parse(body.toString('utf8')));
        else received.errors.push(`unexpected ${req.method} ${req.url}`);
      } catch (error) {
        received.errors.push(`${req.url}: ${(error as Error).message}`);
      }
      res.writeHead(200, { 'content-type': type || 'application/json' }).end(type.includes('json') ? '{}' : '');
      for (const look of [...arrived]) look();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  received.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return received;
}

function takeTraces(into: OtlpReceiver, json: unknown): void {
  for (const rs of tracesSchema.parse(json).resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const span of ss.spans) into.spans.push({ ...span, resource: rs.resource?.attributes ?? {} });
}

function takeMetrics(into: OtlpReceiver, json: unknown): void {
  for (const rm of metricsSchema.parse(json).resourceMetrics)
    for (const sm of rm.scopeMetrics)
      for (const metric of sm.metrics) {
        for (const p of metric.sum?.dataPoints ?? [])
          into.points.push({
            metric: metric.name,
            attributes: p.attributes,
            value: Number(p.asInt ?? p.asDouble ?? 0),
          });
        for (const p of metric.histogram?.dataPoints ?? [])
          into.points.push({
            metric: metric.name,
            attributes: p.attributes,
            value: p.sum ?? 0,
            count: Number(p.count ?? 0),
          });
      }
}

/** The environment of a CLI run exporting to `receiver` over OTLP/HTTP JSON. */
export function otlpEnv(receiver: OtlpReceiver, extra: Record<string, string> = {}): Record<string, string> {
  return {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    // The end of a session waits this long for the receiver (1 s by default): ample on a loaded machine.
    OTEL_EXPORTER_OTLP_TIMEOUT: '10000',
    ...extra,
  };
}
