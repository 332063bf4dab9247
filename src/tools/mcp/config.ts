/**
 * MCP server configuration, in Claude Code's format: `{"mcpServers": {"name": {...}}}`.
 * Read from a file or a JSON string (`--mcp-config`), or given as is (library options).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A local server started as a child process and spoken to over stdin/stdout. */
export interface McpStdioServerConfig { type?: 'stdio'; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
/** A remote server over Streamable HTTP or (legacy) SSE. */
export interface McpRemoteServerConfig { type: 'http' | 'sse'; url: string; headers?: Record<string, string> }
/** An in-process server of the official SDK, reached through `mcp_message` control requests. */
export interface McpSdkServerConfig { type: 'sdk'; name?: string }

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig | McpSdkServerConfig;

/** Reads one `--mcp-config` value: a JSON string or the path of a JSON file. */
export function readMcpConfigArg(value: string, cwd: string): Record<string, McpServerConfig> {
  const text = value.trim();
  let parsed: unknown;
  if (text.startsWith('{')) {
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`--mcp-config: invalid JSON: ${(error as Error).message}`);
    }
  } else {
    const file = path.resolve(cwd, text);
    if (!existsSync(file)) throw new Error(`--mcp-config ${value}: no such file`);
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`--mcp-config ${value}: invalid JSON: ${(error as Error).message}`);
    }
  }
  const servers = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new Error(`--mcp-config ${text.startsWith('{') ? '(JSON)' : value}: expected {"mcpServers": {"name": {...}}}`);
  }
  return validateMcpServers(servers as Record<string, unknown>);
}

/** Checks every server entry; throws one clear error naming the server. */
export function validateMcpServers(servers: Record<string, unknown>): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (const [name, raw] of Object.entries(servers)) {
    if (!name) throw new Error('MCP server names must not be empty');
    out[name] = validateServer(name, raw);
  }
  return out;
}

function validateServer(name: string, raw: unknown): McpServerConfig {
  const fail = (why: string): never => {
    throw new Error(`MCP server "${name}": ${why}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('expected an object');
  const config = raw as Record<string, unknown>;
  const type = config.type ?? (config.command !== undefined ? 'stdio' : config.url !== undefined ? 'http' : undefined);
  if (type === 'stdio') {
    if (typeof config.command !== 'string' || !config.command) fail('"command" must be a non-empty string');
    if (config.args !== undefined && !isStringArray(config.args)) fail('"args" must be an array of strings');
    if (config.env !== undefined && !isStringRecord(config.env)) fail('"env" must be an object of strings');
    if (config.cwd !== undefined && typeof config.cwd !== 'string') fail('"cwd" must be a string');
    return { type: 'stdio', command: config.command as string, args: config.args as string[] | undefined, env: config.env as Record<string, string> | undefined, cwd: config.cwd as string | undefined };
  }
  if (type === 'http' || type === 'sse') {
    if (typeof config.url !== 'string') fail('"url" must be a string');
    try {
      new URL(config.url as string);
    } catch {
      fail(`"url" is not a valid URL: ${String(config.url)}`);
    }
    if (config.headers !== undefined && !isStringRecord(config.headers)) fail('"headers" must be an object of strings');
    return { type, url: config.url as string, headers: config.headers as Record<string, string> | undefined };
  }
  if (type === 'sdk') return { type: 'sdk', name: typeof config.name === 'string' ? config.name : name };
  return fail(`unsupported type ${JSON.stringify(type)}; expected "stdio" (with "command"), "http" or "sse" (with "url")`);
}

const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isStringRecord = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/** Tool-name-safe form of a server or tool name, as Claude Code builds `mcp__<server>__<tool>`. */
export function normalizeMcpName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** The model-facing name of an MCP tool. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${normalizeMcpName(server)}__${normalizeMcpName(tool)}`;
}

/** Milliseconds from an environment variable, or the default. */
export function envMs(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
