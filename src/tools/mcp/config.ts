/**
 * MCP server configuration, in Claude Code's format: `{"mcpServers": {"name": {...}}}`.
 * Read from a file or a JSON string (`--mcp-config`), or given as is (library options).
 */
import { errorMessage } from '../../process/errors.ts';
import { envMs } from '../../process/env-number.ts';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A local server started as a child process and spoken to over stdin/stdout. */
export interface McpStdioServerConfig {
  type?: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /**
   * agentpipe's addition: what the server's sandbox opens beyond the workspace profile (the
   * working folders writable, no network): `network: true` lets it reach the hosts of
   * `sandbox.network.allowedDomains` and its own `allowedDomains` through the egress proxy,
   * `allowWrite`/`allowRead` more paths (its own config or cache), `enabled: false` runs it unconfined.
   */
  sandbox?: {
    enabled?: boolean;
    network?: boolean;
    allowedDomains?: string[];
    allowWrite?: string[];
    allowRead?: string[];
  };
}
/** A remote server over Streamable HTTP or (legacy) SSE. */
export interface McpRemoteServerConfig {
  type: 'http' | 'sse';
  url: string;
  headers?: Record<string, string>;
}
/** An in-process server of the official SDK, reached through `mcp_message` control requests. */
export interface McpSdkServerConfig {
  type: 'sdk';
  name?: string;
}

export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig | McpSdkServerConfig;

/** Reads one `--mcp-config` value: a JSON string or the path of a JSON file. */
export async function readMcpConfigArg(value: string, cwd: string): Promise<Record<string, McpServerConfig>> {
  const text = value.trim();
  let parsed: unknown;
  if (text.startsWith('{')) {
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`--mcp-config: invalid JSON: ${errorMessage(error)}`);
    }
  } else {
    const file = path.resolve(cwd, text);
    if (!existsSync(file)) throw new Error(`--mcp-config ${value}: no such file`);
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`--mcp-config ${value}: invalid JSON: ${errorMessage(error)}`);
    }
  }
  const { parseMcpConfigDocument } = await import('./config-schema.ts');
  return parseMcpConfigDocument(parsed, `--mcp-config ${text.startsWith('{') ? '(JSON)' : value}`);
}

/** Tool-name-safe form of a server or tool name, as Claude Code builds `mcp__<server>__<tool>`. */
export function normalizeMcpName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** The model-facing name of an MCP tool. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${normalizeMcpName(server)}__${normalizeMcpName(tool)}`;
}

/**
 * The time limits of MCP requests, in one place. MCP_TIMEOUT: connecting a server (30 s).
 * MCP_TOOL_TIMEOUT: one tool call, from the model or `mcp_call` (Claude Code's default of
 * 100,000,000 ms: no practical limit, interrupt stops a call), and one resources request, which
 * keeps the MCP SDK's own 60 s request timeout unless MCP_TOOL_TIMEOUT is set.
 */
export const mcpTimeouts = {
  connectMs: (): number => envMs('MCP_TIMEOUT', 30_000),
  toolCallMs: (): number => envMs('MCP_TOOL_TIMEOUT', 100_000_000),
  resourceMs: (): number => envMs('MCP_TOOL_TIMEOUT', 60_000),
};
