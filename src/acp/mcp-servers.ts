/**
 * The `mcpServers` of an ACP `session/new` / `session/load` request in agentpipe's format. The
 * ACP SDK has checked their shape; each is then checked by the one MCP config schema (a URL
 * must be an http(s) URL, ...), as MCP servers from every other source are.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import type { McpServerConfig } from '../tools/mcp/config.ts';

/** ACP MCP servers as session options; throws an Error that names the server and what is wrong. */
export async function mcpServersOf(
  servers: McpServer[] | undefined,
): Promise<Record<string, McpServerConfig> | undefined> {
  if (!servers?.length) return undefined;
  const { parseMcpServer } = await import('../tools/mcp/config-schema.ts');
  const entries = (list: Array<{ name: string; value: string }>) =>
    Object.fromEntries(list.map((e) => [e.name, e.value]));
  const out: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    const config =
      'type' in server && (server.type === 'http' || server.type === 'sse')
        ? { type: server.type, url: server.url, headers: entries(server.headers) }
        : { command: server.command, args: server.args, env: entries(server.env) };
    out[server.name] = parseMcpServer(server.name, config);
  }
  return out;
}
