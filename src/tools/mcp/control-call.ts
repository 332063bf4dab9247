/**
 * `mcp_call`: the client calls an MCP tool itself, with no model turn and no permission
 * check (the control channel is trusted). `tool` is the model-facing `mcp__<server>__<tool>`,
 * or the server's own tool name beside `serverName`. Answers the server's CallToolResult
 * (a tool error is `isError: true` in it); a call that cannot be made is an error response.
 */
import type { McpConnection } from './connection.ts';
import { mcpTimeouts, mcpToolName } from './config.ts';
import type { McpManager } from './manager.ts';

type Request = { subtype: string; [key: string]: unknown };

/** Calls the tool; `signal` (the client's control_cancel_request) cancels the call. */
export async function callByControl(
  manager: McpManager,
  request: Request,
  signal: AbortSignal = new AbortController().signal,
): Promise<Record<string, unknown>> {
  const args = request.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new Error('mcp_call: arguments must be an object');
  await manager.ready(); // a server still connecting is waited for
  const { connection, tool } = target(manager, request);
  const result = await connection.callTool(tool, args as Record<string, unknown>, signal, mcpTimeouts.toolCallMs());
  return result as Record<string, unknown>;
}

function target(manager: McpManager, request: Request): { connection: McpConnection; tool: string } {
  const tool = request.tool ?? request.name;
  if (typeof tool !== 'string' || !tool) throw new Error('mcp_call: tool must be a string, e.g. "mcp__server__tool"');
  const server = request.serverName ?? request.server_name;
  if (server !== undefined) return { connection: manager.server(server), tool };
  for (const { name } of manager.statusList()) {
    const prefix = mcpToolName(name, '');
    if (!tool.startsWith(prefix)) continue;
    const connection = manager.server(name);
    const def = connection.tools.find((t) => mcpToolName(name, t.name) === tool);
    return { connection, tool: def?.name ?? tool.slice(prefix.length) };
  }
  const known = manager.statusList().map((s) => s.name);
  throw new Error(
    `mcp_call: no MCP server for tool ${JSON.stringify(tool)} (expected mcp__<server>__<tool>; servers: ` +
      `${known.join(', ') || 'none'})`,
  );
}
