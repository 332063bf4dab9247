/**
 * The environment of the processes agentpipe starts for the model and for the user's config:
 * Bash, command hooks, MCP stdio servers, the API key helper. Keys and tokens agentpipe itself
 * uses are taken out, so a model cannot print them (`echo $ANTHROPIC_API_KEY`) or send them away.
 * A user who wants a tool to have one names it in AGENTPIPE_PASS_ENV (comma separated).
 */
import os from 'node:os';
import path from 'node:path';
import { isOneOf } from './guards.ts';

/** The agentpipe config folder: `$AGENTPIPE_HOME`, default `~/.agentpipe` (transcripts, locks, the code cache). */
export function agentpipeHome(env: Record<string, string | undefined> = process.env): string {
  return env.AGENTPIPE_HOME ? path.resolve(env.AGENTPIPE_HOME) : path.join(os.homedir(), '.agentpipe');
}

/** The OTLP exporters' header variables (telemetry: docs/telemetry.md). */
export const OTLP_HEADER_VARIABLES = [
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
  'OTEL_EXPORTER_OTLP_LOGS_HEADERS',
] as const;

/** Variables agentpipe reads credentials from; never inherited unless passed on. */
export const SECRET_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'AGENTPIPE_SERVE_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'CODEX_API_KEY',
  'AGENTPIPE_SDK_URL_TOKEN',
  // The OTLP exporters' headers hold the telemetry backend's key (Honeycomb, Grafana Cloud ...).
  ...OTLP_HEADER_VARIABLES,
] as const;

/** Further variables this process took a key from (a Codex provider's `env_key`), withheld like the list above. */
const held = new Set<string>();

/** Withholds `name` from every process started from now on (unless AGENTPIPE_PASS_ENV names it). */
export function holdSecretVariable(name: string): void {
  held.add(name);
}

/** The names the user passes on explicitly. */
function passedOn(env: NodeJS.ProcessEnv): Set<string> {
  return new Set(
    (env.AGENTPIPE_PASS_ENV ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** `base` (default: this process's environment) without the secret variables the user did not pass on. */
export function childEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const keep = passedOn(base);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if ((isOneOf(SECRET_VARIABLES, key) || held.has(key)) && !keep.has(key)) continue;
    env[key] = value;
  }
  return env;
}
