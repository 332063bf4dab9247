/**
 * A wrapped CLI in the sandbox: the harness profile (the working folders writable, its API host
 * reachable through the egress proxy and nothing else of the network but
 * `sandbox.network.allowedDomains`) plus the CLI's own home, readable and writable although it is
 * among the credential stores every other command is kept from (it holds that CLI's own login).
 * The rest of the user's credential stores, agentpipe's home and other processes stay out of
 * sight. An API on this machine's loopback (a local model server, a test's fake) is forwarded into
 * the sandbox at the same address, so the CLI reaches it as it is configured.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SandboxConfig } from '../sandbox/config.ts';
import type { HarnessConfig } from './types.ts';

/** The folders (made when missing) and files each CLI keeps its state in. */
export function cliHomes(name: HarnessConfig['name'], env: Record<string, string | undefined>): string[] {
  const home = env.HOME ?? '/';
  switch (name) {
    case 'claude':
      return [env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), path.join(home, '.claude.json')];
    case 'qwen':
      return [path.join(home, '.qwen')];
    case 'codex':
      return [env.CODEX_HOME ?? path.join(home, '.codex')];
    case 'gemini':
      return [path.join(env.GEMINI_CLI_HOME ?? home, '.gemini')];
    case 'acp':
      return [];
  }
}

/** The vendors' API and login hosts, for a CLI whose base URL is not set. */
const VENDOR_HOSTS: Record<HarnessConfig['name'], string[]> = {
  claude: ['api.anthropic.com', 'console.anthropic.com', 'platform.claude.com', 'claude.ai'],
  codex: ['api.openai.com', 'auth.openai.com', 'chatgpt.com'],
  gemini: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com'],
  qwen: ['dashscope.aliyuncs.com', 'dashscope-intl.aliyuncs.com', 'chat.qwen.ai'],
  acp: [],
};

/** The variable each CLI reads its base URL from. */
const BASE_URL_VARIABLE: Record<HarnessConfig['name'], string | undefined> = {
  claude: 'ANTHROPIC_BASE_URL',
  codex: 'OPENAI_BASE_URL',
  gemini: 'GOOGLE_GEMINI_BASE_URL',
  qwen: 'OPENAI_BASE_URL',
  acp: undefined,
};

/**
 * The hosts a wrapped CLI may reach for its model: its base URL's host and port (`--base-url`, or
 * the CLI's own variable), else its vendor's API and login hosts on port 443.
 */
export function apiHosts(
  name: HarnessConfig['name'],
  baseUrl: string | undefined,
  env: Record<string, string | undefined>,
): string[] {
  const variable = BASE_URL_VARIABLE[name];
  const url = baseUrl ?? (variable ? env[variable] : undefined);
  if (url) {
    const host = hostPort(url);
    return host ? [host] : [];
  }
  return VENDOR_HOSTS[name].map((host) => `${host}:443`);
}

/** The argv and environment to start the CLI with, and what to tidy when it ended. */
export async function confineCli(
  config: Pick<HarnessConfig, 'name' | 'cwd' | 'baseUrl'> & { sandbox?: SandboxConfig },
  argv: string[],
  env: Record<string, string>,
): Promise<{ argv: string[]; env: Record<string, string>; release(): void }> {
  if (!config.sandbox) return { argv, env, release: () => {} };
  const { sandboxed } = await import('../sandbox/sandbox.ts');
  const homes = cliHomes(config.name, env);
  for (const dir of homes) if (!path.extname(dir) && !existsSync(dir)) mkdirSync(dir, { recursive: true });
  return sandboxed(config.sandbox, {
    profile: 'harness',
    command: argv,
    cwd: config.cwd,
    env,
    writable: homes,
    network: { hosts: [...apiHosts(config.name, config.baseUrl, env), ...telemetryHosts(env)] },
  });
}

/** The OTLP variables that name where a wrapped CLI's own telemetry goes (agentpipe passes them on). */
const OTLP_ENDPOINTS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT',
] as const;

/**
 * The collector the wrapped CLI is told to export to, as `host:port`: its telemetry nests under agentpipe's spans
 * only if it can reach it. Nothing when its telemetry is not pointed anywhere.
 */
export function telemetryHosts(env: Record<string, string | undefined>): string[] {
  const hosts = new Set<string>();
  for (const name of OTLP_ENDPOINTS) {
    const host = env[name] ? hostPort(env[name], true) : undefined;
    if (host) hosts.add(host);
  }
  return [...hosts];
}

/**
 * `host:port` of a URL (the scheme's port when it names none); undefined when it is not a URL, or not HTTP(S) when
 * `httpOnly`.
 */
function hostPort(url: string, httpOnly = false): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // not a URL: the CLI fails on it by itself
  }
  if (httpOnly && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'http:' ? '80' : '443')}`;
}
