/**
 * Whether telemetry is on, and its start: nothing of OpenTelemetry is loaded here, so a run with telemetry off loads
 * none of it (test/architecture/print-run-loads.test.ts). The CLI turns it on with `--otel` or when
 * OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER name an exporter; the library with its `telemetry` option.
 */
import type { ExporterKind, TelemetrySettings } from './sdk.ts';
import type { Telemetry, TelemetryOption } from './types.ts';

const isTrue = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

/** An exporter variable's value: `otlp`, `console` or `none` (the first of a list we know). */
function exporterOf(value: string | undefined, fallback: ExporterKind): ExporterKind {
  if (value === undefined || value.trim() === '') return fallback;
  for (const name of value.split(',').map((v) => v.trim())) {
    if (name === 'otlp' || name === 'console' || name === 'none') return name;
  }
  return 'none';
}

/** True when the OTEL_* variables ask a CLI run for telemetry (an exporter named, the SDK not disabled). */
export function telemetryInEnv(env: NodeJS.ProcessEnv): boolean {
  if (isTrue(env.OTEL_SDK_DISABLED)) return false;
  return (
    exporterOf(env.OTEL_TRACES_EXPORTER, 'none') !== 'none' || exporterOf(env.OTEL_METRICS_EXPORTER, 'none') !== 'none'
  );
}

/** The settings for `option` (undefined when it is off). */
function settingsOf(
  option: TelemetryOption,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): TelemetrySettings | undefined {
  if (option === false) return undefined;
  const given = typeof option === 'object' ? option : {};
  const own = given.tracerProvider === undefined && given.meterProvider === undefined;
  if (own && isTrue(env.OTEL_SDK_DISABLED)) return undefined;
  const settings: TelemetrySettings = {
    // Asked for by the option or --otel: OTLP unless a variable says otherwise.
    traces: exporterOf(env.OTEL_TRACES_EXPORTER, 'otlp'),
    metrics: exporterOf(env.OTEL_METRICS_EXPORTER, 'otlp'),
    content: {
      prompts: given.content === true || isTrue(env.OTEL_LOG_USER_PROMPTS),
      tools: given.content === true || isTrue(env.OTEL_LOG_TOOL_CONTENT),
    },
    env,
    log,
    ...(given.tracerProvider !== undefined
      ? { tracerProvider: given.tracerProvider as TelemetrySettings['tracerProvider'] }
      : {}),
    ...(given.meterProvider !== undefined
      ? { meterProvider: given.meterProvider as TelemetrySettings['meterProvider'] }
      : {}),
  };
  if (own && settings.traces === 'none' && settings.metrics === 'none') return undefined;
  return settings;
}

/** One set of exporters per process, whatever number of sessions use it. */
let shared: Promise<Telemetry> | undefined;

/**
 * Starts telemetry for `option` (undefined when off): the OpenTelemetry SDK is imported here, on first use. With the
 * caller's own providers a new handle is made; otherwise the process shares one.
 */
export async function loadTelemetry(
  option: TelemetryOption | undefined,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<Telemetry | undefined> {
  if (option === undefined) return undefined;
  const settings = settingsOf(option, env, log);
  if (!settings) return undefined;
  const { startTelemetry } = await import('./sdk.ts');
  if (settings.tracerProvider || settings.meterProvider) return startTelemetry(settings);
  shared ??= startTelemetry(settings);
  return shared;
}

/**
 * Sends what the process's shared exporters hold and stops them (their connections closed, so the process can end):
 * for a server whose sessions ended. Nothing when telemetry never started.
 */
export async function shutdownTelemetry(): Promise<void> {
  if (shared) await (await shared).shutdown();
}
