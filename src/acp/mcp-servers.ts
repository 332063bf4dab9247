/** The `mcpServers` of an ACP `session/new` / `session/load` request, validated and in agentpipe's format. */
import { z } from 'zod';
import type { McpServerConfig } from '../tools/mcp/config.ts';

const NameValue = z.object({ name: z.string(), value: z.string() });
const Remote = z.object({ type: z.enum(['http', 'sse']), name: z.string().min(1), url: z.url(), headers: z.array(NameValue).default([]) });
const Stdio = z.object({
  type: z.literal('stdio').optional(), name: z.string().min(1), command: z.string().min(1),
  args: z.array(z.string()).default([]), env: z.array(NameValue).default([]),
});
/** ACP's `McpServer[]`: stdio servers have no `type`, remote ones `"http"` or `"sse"`. */
export const AcpMcpServers = z.array(z.union([Remote, Stdio]));

/** ACP MCP servers as session options; throws an Error that says what is wrong with a malformed list. */
export function mcpServersOf(raw: unknown): Record<string, McpServerConfig> | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = AcpMcpServers.safeParse(raw);
  if (!parsed.success) throw new Error(z.prettifyError(parsed.error));
  const servers = parsed.data;
  if (!servers.length) return undefined;
  const entries = (list: Array<{ name: string; value: string }>) => Object.fromEntries(list.map((e) => [e.name, e.value]));
  const out: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    out[server.name] = 'url' in server
      ? { type: server.type, url: server.url, headers: entries(server.headers) }
      : { command: server.command, args: server.args, env: entries(server.env) };
  }
  return out;
}
