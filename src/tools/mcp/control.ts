/**
 * The MCP control requests of a session (`mcp_status`, `mcp_reconnect`, `mcp_toggle`,
 * `mcp_set_servers`, `mcp_read_resource`, `mcp_call`) and the `initialize` fields about MCP,
 * over the session's manager.
 */
import type { McpMessageSender } from './control-transport.ts';
import type { McpManager } from './manager.ts';
import type { McpServerConfig } from './config.ts';
import { callByControl } from './control-call.ts';
import { readResource, resourceTimeoutMs } from './resources.ts';

type Request = { subtype: string; [key: string]: unknown };
/** Sends one control request to the client (the runner's `request`). */
type Requester = (
  request: { subtype: 'mcp_message'; server_name: string; message: Record<string, unknown> },
  signal?: AbortSignal,
) => Promise<Record<string, unknown>>;

/** `mcp_message` control requests as the sender of in-process (sdk) servers. */
export function controlSender(request: Requester): McpMessageSender {
  return (serverName, message, signal) => request({ subtype: 'mcp_message', server_name: serverName, message }, signal);
}

/** `initialize` (checked): `sdkMcpServers` (names) and `mcpServers` (configs); connections start in the background. */
export function applyInitialize(
  manager: McpManager,
  init: { sdkMcpServers?: string[]; mcpServers?: Record<string, McpServerConfig> },
  send: Requester,
): void {
  manager.useControlChannel(controlSender(send));
  if (init.sdkMcpServers) manager.addSdkServers(init.sdkMcpServers);
  if (init.mcpServers) manager.addServers(init.mcpServers);
}

export const mcpControlHandlers = {
  async mcp_status(manager: McpManager): Promise<Record<string, unknown>> {
    await manager.ready();
    // How many resources each server offers (the list is cached, so this is cheap after the first time).
    const counts = new Map(
      await Promise.all(
        manager.resourceServers().map(
          async (c) =>
            [
              c.name,
              await c.listResources(resourceTimeoutMs()).then(
                (l) => l.length,
                () => undefined,
              ),
            ] as const,
        ),
      ),
    );
    return {
      mcpServers: manager
        .detailedStatus()
        .map((s) => (counts.get(s.name) === undefined ? s : { ...s, resources: counts.get(s.name) })),
    };
  },
  /** `{serverName, uri}` → the server's `resources/read` result, `{contents: [...]}`. */
  async mcp_read_resource(manager: McpManager, request: Request): Promise<Record<string, unknown>> {
    if (typeof request.uri !== 'string' || !request.uri)
      throw new Error('mcp_read_resource: uri must be a non-empty string');
    await manager.ready();
    const result = await readResource(manager, nameOf(request), request.uri);
    return { contents: result.contents };
  },
  /**
   * `{tool: "mcp__server__tool", arguments?}` (or `serverName` + the server's own tool name) → the MCP CallToolResult.
   */
  mcp_call: (manager: McpManager, request: Request, signal?: AbortSignal) => callByControl(manager, request, signal),
  /**
   * A message an in-process server sends on its own (e.g. `notifications/tools/list_changed`); acknowledged with `{}`.
   */
  async mcp_message(manager: McpManager, request: Request): Promise<Record<string, unknown>> {
    const { JSONRPCMessageSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const parsed = JSONRPCMessageSchema.safeParse(request.message);
    if (!parsed.success) throw new Error('mcp_message: message is not a JSON-RPC 2.0 message');
    manager.server(request.server_name).receive(parsed.data);
    return {};
  },
  async mcp_reconnect(manager: McpManager, request: Request): Promise<Record<string, unknown>> {
    await manager.reconnect(nameOf(request));
    return {};
  },
  async mcp_toggle(manager: McpManager, request: Request): Promise<Record<string, unknown>> {
    if (typeof request.enabled !== 'boolean') throw new Error('mcp_toggle: enabled must be true or false');
    await manager.toggle(nameOf(request), request.enabled);
    return {};
  },
  async mcp_set_servers(manager: McpManager, request: Request, send: Requester): Promise<Record<string, unknown>> {
    const { parseMcpServers } = await import('./config-schema.ts');
    const servers = parseMcpServers(request.servers, 'mcp_set_servers: servers');
    manager.useControlChannel(controlSender(send));
    return manager.setServers(servers);
  },
};

function nameOf(request: Request): string {
  const name = request.serverName ?? request.server_name;
  if (typeof name !== 'string' || !name) throw new Error(`${request.subtype}: serverName must be a string`);
  return name;
}
