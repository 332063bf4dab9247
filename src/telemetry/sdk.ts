/**
 * The OpenTelemetry SDK set-up: loaded only when telemetry is on (`./load.ts` imports this module). Spans go through a
 * batch processor (a bounded queue: a slow or absent collector never holds up the stream; what overflows is dropped
 * and counted by the SDK's own `otel.sdk.processor.span.processed` metric), metrics through a periodic reader, both
 * to OTLP over HTTP (protobuf or JSON) or the console, configured by the standard OTEL_* variables. A caller's own
 * providers are used as they are.
 */
import { errorMessage } from '../process/errors.ts';
import { randomUUID } from 'node:crypto';
import {
  diag,
  DiagLogLevel,
  trace,
  metrics,
  type Meter,
  type MeterProvider,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { VERSION } from '../version.ts';
import { Metrics } from './metrics.ts';
import { ATTR_PROCESS_PID, ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from './semconv.ts';
import { OtelAgentSpan, promptParent, type ContentPolicy, type SpanSink } from './spans.ts';
import type { AgentInfo, AgentSpan, ParentContext, Telemetry } from './types.ts';
import { isKeyOf } from '../process/guards.ts';

export type ExporterKind = 'otlp' | 'console' | 'none';

export interface TelemetrySettings {
  traces: ExporterKind;
  metrics: ExporterKind;
  content: ContentPolicy;
  /** The caller's own providers (the library's `telemetry` option): used instead of exporters of ours. */
  tracerProvider?: TracerProvider;
  meterProvider?: MeterProvider;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/**
 * Longest wait for the exporters at the end of a session, unless OTEL_EXPORTER_OTLP_TIMEOUT says how long an export
 * may take: a collector that is not there must not hold a one-line run for the SDK's retries (10 s by default); what
 * is still unsent then is dropped when the process exits.
 */
const FLUSH_LIMIT_MS = 1_000;

/** How long the end of a session waits for the exporters: the OTLP timeout the variables give, else FLUSH_LIMIT_MS. */
function flushLimitMs(env: NodeJS.ProcessEnv): number {
  for (const name of [
    'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
    'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT',
    'OTEL_EXPORTER_OTLP_TIMEOUT',
  ]) {
    const n = Number(env[name]);
    if (env[name] && Number.isFinite(n) && n > 0) return n;
  }
  return FLUSH_LIMIT_MS;
}

/** Where OTLP traces go (as the exporter reads the variables), for the line saying they were not delivered. */
function tracesEndpoint(env: NodeJS.ProcessEnv): string {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (specific) return specific;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

type Protocol = 'http/protobuf' | 'http/json';

function protocolOf(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS', log: (line: string) => void): Protocol {
  const named = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (named === 'http/protobuf' || named === 'http/json') return named;
  log(
    `telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=${named} is not supported (http/protobuf, http/json); using http/protobuf`,
  );
  return 'http/protobuf';
}

/** This process, told apart from the others of a cluster that share the service name (not its command line). */
const INSTANCE_ID = randomUUID();

async function resource(env: NodeJS.ProcessEnv) {
  const { detectResources, envDetector, resourceFromAttributes } = await import('@opentelemetry/resources');
  // OTEL_RESOURCE_ATTRIBUTES (the env detector, merged last) may name the instance itself.
  const own = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? 'agentpipe',
    [ATTR_SERVICE_VERSION]: VERSION,
    [ATTR_SERVICE_INSTANCE_ID]: INSTANCE_ID,
    [ATTR_PROCESS_PID]: process.pid,
  });
  return own.merge(detectResources({ detectors: [envDetector] }));
}

async function ownTracerProvider(settings: TelemetrySettings, meterProvider: MeterProvider | undefined) {
  const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base');
  const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace');
  let exporter;
  if (settings.traces === 'console') exporter = new (await import('./console.ts')).StderrSpanExporter();
  else if (protocolOf(settings.env, 'TRACES', settings.log) === 'http/json')
    exporter = new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  else exporter = new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  const env = settings.env;
  const processor = new BatchSpanProcessor({
    exporter,
    ...envInteger(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 'maxQueueSize'),
    ...envInteger(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'maxExportBatchSize'),
    ...envInteger(env, 'OTEL_BSP_SCHEDULE_DELAY', 'scheduledDelayMillis'),
    ...envInteger(env, 'OTEL_BSP_EXPORT_TIMEOUT', 'exportTimeoutMillis'),
    // Spans dropped on a full queue are counted in `otel.sdk.processor.span.processed` (error.type queue_full).
    ...(meterProvider ? { selfObsMeterProvider: meterProvider } : {}),
  });
  return new BasicTracerProvider({ resource: await resource(settings.env), spanProcessors: [processor] });
}

/** `{ [key]: n }` for a positive integer variable, else nothing (the SDK's default). */
function envInteger<K extends string>(env: NodeJS.ProcessEnv, name: string, key: K): Partial<Record<K, number>> {
  const n = Number(env[name]);
  return Number.isInteger(n) && n > 0 ? ({ [key]: n } as Partial<Record<K, number>>) : {};
}

async function ownMeterProvider(settings: TelemetrySettings) {
  const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
  let exporter;
  if (settings.metrics === 'console') exporter = new (await import('./console.ts')).StderrMetricExporter();
  else if (protocolOf(settings.env, 'METRICS', settings.log) === 'http/json')
    exporter = new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter();
  else exporter = new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter();
  const interval = Number(settings.env.OTEL_METRIC_EXPORT_INTERVAL);
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
  });
  return new MeterProvider({ resource: await resource(settings.env), readers: [reader] });
}

interface Flushable {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Waits for the exporters' `work` at most the flush limit; never throws. What they could not send (no answer in time,
 * an export that failed) is one line naming what was lost and where it was going.
 */
async function bounded(work: Promise<unknown>, settings: TelemetrySettings): Promise<void> {
  const limitMs = flushLimitMs(settings.env);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), limitMs);
    timer.unref();
  });
  try {
    if ((await Promise.race([work, limit])) === 'late')
      settings.log(
        `telemetry: ${lost(settings)} not delivered: ${destination(settings)} did not take them within ${limitMs} ms ` +
          '(is the collector running? OTEL_EXPORTER_OTLP_TIMEOUT=<ms> waits longer)',
      );
  } catch (error) {
    settings.log(`telemetry: ${lost(settings)} not delivered to ${destination(settings)}: ${errorMessage(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** What the exporters carry: "traces", "metrics" or both. */
function lost(settings: TelemetrySettings): string {
  const kinds = [settings.traces !== 'none' && 'traces', settings.metrics !== 'none' && 'metrics'].filter(Boolean);
  return kinds.join(' and ') || 'telemetry';
}

/** Where they were going: the OTLP collector's traces endpoint, or the console. */
function destination(settings: TelemetrySettings): string {
  return settings.traces === 'otlp' || settings.metrics === 'otlp'
    ? `the collector at ${tracesEndpoint(settings.env).replace(/\/v1\/traces$/, '')}`
    : 'the console exporter';
}

class OtelTelemetry implements Telemetry {
  readonly #sink: SpanSink;
  readonly settings: TelemetrySettings;
  readonly owned: Flushable[];

  constructor(tracer: Tracer, meter: Meter | undefined, settings: TelemetrySettings, owned: Flushable[]) {
    this.#sink = { tracer, metrics: new Metrics(meter), content: settings.content };
    this.settings = settings;
    this.owned = owned;
  }

  prompt(info: AgentInfo, parent?: ParentContext): AgentSpan {
    return new OtelAgentSpan(this.#sink, info, promptParent(parent));
  }

  remotePrompt(info: AgentInfo, parent?: ParentContext): AgentSpan {
    return new OtelAgentSpan(this.#sink, info, promptParent(parent), 'client');
  }

  sessionStarted(): void {
    this.#sink.metrics.session();
  }

  linesChanged(added: number, removed: number): void {
    this.#sink.metrics.lines(added, removed);
  }

  async flush(): Promise<void> {
    await bounded(Promise.all(this.owned.map((p) => p.forceFlush())), this.settings);
  }

  async shutdown(): Promise<void> {
    await bounded(Promise.all(this.owned.map((p) => p.shutdown())), this.settings);
  }
}

/** Telemetry on the caller's providers, or on exporters set up from the OTEL_* variables. */
export async function startTelemetry(settings: TelemetrySettings): Promise<Telemetry> {
  const owned: Flushable[] = [];
  if (!settings.tracerProvider && !settings.meterProvider) {
    const level = settings.env.OTEL_LOG_LEVEL?.toUpperCase();
    // The SDK's own diagnostics (an export that failed, spans dropped) on the session's log, one line each.
    const line = (message: string, ...args: unknown[]) =>
      settings.log(`telemetry: ${[message, ...args.map((a) => errorMessage(a))].join(' ')}`);
    diag.setLogger(
      { error: line, warn: line, info: line, debug: line, verbose: line },
      {
        logLevel: level && isKeyOf(DiagLogLevel, level) ? DiagLogLevel[level] : DiagLogLevel.WARN,
      },
    );
  }
  let meterProvider = settings.meterProvider;
  if (!meterProvider && !settings.tracerProvider && settings.metrics !== 'none') {
    const own = await ownMeterProvider(settings);
    owned.push(own);
    meterProvider = own;
  }
  let tracerProvider = settings.tracerProvider;
  if (!tracerProvider && !settings.meterProvider && settings.traces !== 'none') {
    const own = await ownTracerProvider(settings, meterProvider);
    owned.unshift(own);
    tracerProvider = own;
  }
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer('agentpipe', VERSION);
  const meter = (meterProvider ?? (settings.tracerProvider ? metrics.getMeterProvider() : undefined))?.getMeter(
    'agentpipe',
    VERSION,
  );
  return new OtelTelemetry(tracer, meter, settings, owned);
}
