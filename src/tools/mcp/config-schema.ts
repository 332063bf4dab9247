/**
 * The one schema of an MCP server configuration (Claude Code's format), used for every source:
 * `--mcp-config`, the `initialize` request's `mcpServers`, `mcp_set_servers`, and ACP sessions.
 * zod loads lazily: import this module with `import()`.
 */
import { z } from 'zod';
import { issuesOf } from '../../messages/issues.ts';
import type { McpRemoteServerConfig, McpSdkServerConfig, McpServerConfig, McpStdioServerConfig } from './config.ts';

const StringRecord = z.record(z.string(), z.string());

const Stdio = z.object({
  type: z.literal('stdio').default('stdio'),
  command: z.string().min(1, '"command" must be a non-empty string'),
  args: z.array(z.string()).optional(),
  env: StringRecord.optional(),
  cwd: z.string().optional(),
  sandbox: z
    .object({
      enabled: z.boolean().optional(),
      network: z.boolean().optional(),
      allowedDomains: z.array(z.string()).optional(),
      allowWrite: z.array(z.string()).optional(),
      allowRead: z.array(z.string()).optional(),
    })
    .optional(),
}) satisfies z.ZodType<McpStdioServerConfig>;
const Remote = z.object({
  type: z.enum(['http', 'sse']),
  url: z.url({ protocol: /^https?$/, error: '"url" must be an http(s) URL' }),
  headers: StringRecord.optional(),
}) satisfies z.ZodType<McpRemoteServerConfig>;
const Sdk = z.object({ type: z.literal('sdk'), name: z.string().optional() }) satisfies z.ZodType<McpSdkServerConfig>;

const BY_TYPE = { stdio: Stdio, http: Remote, sse: Remote, sdk: Sdk } as const;

/** Checks one server entry; throws one clear error naming the server and the field. */
export function parseMcpServer(name: string, raw: unknown): McpServerConfig {
  if (!name) throw new Error('MCP server names must not be empty');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`MCP server "${name}": expected an object`);
  const config = raw as { type?: unknown; command?: unknown; url?: unknown };
  const type = config.type ?? (config.command !== undefined ? 'stdio' : config.url !== undefined ? 'http' : undefined);
  const schema =
    typeof type === 'string' && Object.hasOwn(BY_TYPE, type) ? BY_TYPE[type as keyof typeof BY_TYPE] : undefined;
  if (!schema) {
    throw new Error(
      `MCP server "${name}": unsupported type ${JSON.stringify(type)}; expected "stdio" (with "command"), ` +
        `"http" or "sse" (with "url")`,
    );
  }
  const parsed = schema.safeParse({ ...raw, type });
  if (!parsed.success) throw new Error(`MCP server "${name}": ${issuesOf(parsed.error)}`);
  return parsed.data.type === 'sdk' ? { type: 'sdk', name: parsed.data.name ?? name } : parsed.data;
}

/** Checks every entry of a `{name: config}` object. */
export function parseMcpServers(raw: unknown, where: string): Record<string, McpServerConfig> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${where}: expected an object of MCP server configs by name`);
  const out: Record<string, McpServerConfig> = {};
  for (const [name, config] of Object.entries(raw)) out[name] = parseMcpServer(name, config);
  return out;
}

/** An MCP config document: `{"mcpServers": {"name": {...}}}`. */
export function parseMcpConfigDocument(value: unknown, where: string): Record<string, McpServerConfig> {
  const servers =
    typeof value === 'object' && value !== null ? (value as { mcpServers?: unknown }).mcpServers : undefined;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new Error(`${where}: expected {"mcpServers": {"name": {...}}}`);
  return parseMcpServers(servers, where);
}
