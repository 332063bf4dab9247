/**
 * The MCP servers of a session: connected in parallel at start (each within MCP_TIMEOUT),
 * their tools as `mcp__<server>__<tool>`, status for `system/init` and `mcp_status`, and the
 * runtime changes (reconnect, toggle, set servers). The MCP SDK loads only when a server is
 * configured. A server that goes away is announced with a `system/mcp_server_status` message.
 */
import type { McpServerInfo, McpServerStatusMessage } from '../../messages/types.ts';
import { newUuid } from '../../messages/ids.ts';
import type { Tool } from '../types.ts';
import { mcpTimeouts, type McpServerConfig } from './config.ts';
import type { SandboxConfig } from '../../sandbox/config.ts';
import { McpConnection, type McpSource } from './connection.ts';
import type { McpMessageSender } from './control-transport.ts';
import { mcpTool, type McpTool } from './tool.ts';
import { resourceTools } from './resources.ts';

export interface McpManagerOptions {
  cwd: string;
  sessionId: string;
  /** The sandbox stdio servers start in (the session's). */
  sandbox?: SandboxConfig;
  emit(message: McpServerStatusMessage): Promise<void> | void;
}

export class McpManager {
  readonly #options: McpManagerOptions;
  readonly #servers = new Map<string, McpConnection>();
  readonly #connecting = new Set<Promise<void>>();
  readonly #tools = new WeakMap<McpConnection, { defs: unknown; tools: McpTool[] }>();
  #sender?: McpMessageSender;
  #closed = false;
  /** ListMcpResourcesTool and ReadMcpResourceTool, offered while a server has resources. */
  readonly #resourceTools: Tool[] = resourceTools(this);

  constructor(servers: Record<string, McpServerConfig>, options: McpManagerOptions) {
    this.#options = options;
    for (const [name, config] of Object.entries(servers))
      this.#add(name, config, config.type === 'sdk' ? 'sdk' : 'config');
  }

  /** True when any server is configured. */
  get size(): number {
    return this.#servers.size;
  }

  /** Routes in-process (sdk) servers through the client's control channel. */
  useControlChannel(sender: McpMessageSender): void {
    this.#sender = sender;
    this.start();
  }

  /** Starts connecting every pending server (sdk ones once there is a control channel); not awaited. */
  start(): void {
    for (const connection of this.#servers.values()) {
      if (connection.status === 'pending' && !connection.connecting && (connection.source !== 'sdk' || this.#sender))
        this.#connect(connection);
    }
  }

  /** Waits for the connections under way (sdk servers with no control channel fail now). */
  async ready(): Promise<void> {
    for (const connection of this.#servers.values())
      if (connection.status === 'pending' && !connection.connecting) this.#connect(connection);
    while (this.#connecting.size > 0) await Promise.all([...this.#connecting]);
  }

  /** The in-process servers of the official SDK (`initialize.sdkMcpServers`). */
  addSdkServers(names: string[]): void {
    for (const name of names) {
      if (this.#servers.get(name)?.source === 'sdk') continue;
      this.#connect(this.#add(name, { type: 'sdk', name }, 'sdk'));
    }
  }

  /** Adds servers that connect in the background (`initialize.mcpServers`); existing names are kept. */
  addServers(servers: Record<string, McpServerConfig>): void {
    for (const [name, config] of Object.entries(servers)) {
      if (!this.#servers.has(name)) this.#add(name, config, config.type === 'sdk' ? 'sdk' : 'config');
    }
    this.start();
  }

  /** Every tool of every connected server (failed servers keep theirs: calls then fail clearly). */
  tools(): Tool[] {
    const out: Tool[] = [];
    for (const connection of this.#servers.values()) {
      if (connection.status === 'disabled') continue;
      let cached = this.#tools.get(connection);
      if (!cached || cached.defs !== connection.tools) {
        const timeout = () => mcpTimeouts.toolCallMs();
        cached = { defs: connection.tools, tools: connection.tools.map((def) => mcpTool(connection, def, timeout)) };
        this.#tools.set(connection, cached);
      }
      out.push(...cached.tools);
    }
    if (this.resourceServers().length) out.push(...this.#resourceTools);
    return out;
  }

  /** True for tools this manager made. */
  owns(tool: Tool): boolean {
    return (
      ('mcpServer' in tool && typeof (tool as McpTool).mcpServer === 'string') || this.#resourceTools.includes(tool)
    );
  }

  /** One server by name; throws a clear error naming the known ones. */
  server(name: unknown): McpConnection {
    return this.#get(name);
  }

  /** The connected servers that offer resources. */
  resourceServers(): McpConnection[] {
    return [...this.#servers.values()].filter((c) => c.hasResources);
  }

  /** `system/init.mcp_servers`. */
  statusList() {
    return [...this.#servers.values()].map((c) => c.info());
  }

  /** The `mcp_status` answer: the status plus server info, config and tool details. */
  detailedStatus() {
    return [...this.#servers.values()].map((c) => ({
      ...withoutSource(c.info()),
      ...(c.serverInfo ? { serverInfo: c.serverInfo } : {}),
      config: c.config,
      scope: c.source === 'dynamic' ? 'dynamic' : c.source === 'sdk' ? 'sdk' : 'flag',
      tools:
        c.status === 'connected'
          ? c.tools.map((t) => ({
              name: t.name,
              description: t.description,
              annotations: {
                readOnly: t.annotations?.readOnlyHint,
                destructive: t.annotations?.destructiveHint,
                openWorld: t.annotations?.openWorldHint,
              },
            }))
          : undefined,
    }));
  }

  /** Reconnects one server; throws when it does not exist or fails again. */
  async reconnect(name: string): Promise<void> {
    const connection = this.#get(name);
    await this.#connectNow(connection);
    this.#announce(connection);
    if (connection.status === 'failed')
      throw new Error(`MCP server "${name}" failed to reconnect: ${connection.error}`);
  }

  /** Enables (connects) or disables (stops, hides its tools) one server. */
  async toggle(name: string, enabled: boolean): Promise<void> {
    const connection = this.#get(name);
    if (enabled) {
      if (connection.status === 'connected') return;
      await this.#connectNow(connection);
    } else await connection.disable();
    this.#announce(connection);
  }

  /** Replaces the servers added at runtime; the configured ones stay. */
  async setServers(
    servers: Record<string, McpServerConfig>,
  ): Promise<{ added: string[]; removed: string[]; errors: Record<string, string> }> {
    const removed: string[] = [];
    for (const [name, connection] of this.#servers) {
      if (connection.source === 'dynamic' && !(name in servers)) {
        this.#servers.delete(name);
        removed.push(name);
        await connection.close();
      }
    }
    const added: string[] = [];
    const fresh: McpConnection[] = [];
    for (const [name, config] of Object.entries(servers)) {
      const existing = this.#servers.get(name);
      if (existing && JSON.stringify(existing.config) === JSON.stringify(config)) continue;
      if (existing) await existing.close();
      fresh.push(this.#add(name, config, existing?.source === 'config' ? 'config' : 'dynamic'));
      added.push(name);
    }
    await Promise.all(fresh.map((c) => this.#connectNow(c)));
    const errors: Record<string, string> = {};
    for (const c of fresh) if (c.status === 'failed') errors[c.name] = c.error ?? 'failed';
    return { added, removed, errors };
  }

  /** Stops every server (in parallel; stdio children in stages). No announcements after this. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#servers.values()].map((c) => c.close()));
  }

  #add(name: string, config: McpServerConfig, source: McpSource): McpConnection {
    const connection = new McpConnection(name, config, source);
    connection.onCrash = (c) => this.#announce(c);
    this.#servers.set(name, connection);
    return connection;
  }

  #get(name: unknown): McpConnection {
    const connection = typeof name === 'string' ? this.#servers.get(name) : undefined;
    if (!connection)
      throw new Error(
        `no MCP server named ${JSON.stringify(name)}; known: ${[...this.#servers.keys()].join(', ') || '(none)'}`,
      );
    return connection;
  }

  #connect(connection: McpConnection): void {
    connection.connecting = true;
    const promise = this.#connectNow(connection).finally(() => {
      connection.connecting = false;
      this.#connecting.delete(promise);
    });
    this.#connecting.add(promise);
  }

  #connectNow(connection: McpConnection): Promise<void> {
    return connection.connect(this.#options.cwd, mcpTimeouts.connectMs(), this.#sender, this.#options.sandbox);
  }

  #announce(connection: McpConnection): void {
    if (this.#closed) return;
    const info = connection.info();
    void this.#options.emit({
      type: 'system',
      subtype: 'mcp_server_status',
      server_name: connection.name,
      status: info.status,
      ...(info.error ? { error: info.error } : {}),
      ...(connection.toolNames() ? { tools: connection.toolNames() } : {}),
      uuid: newUuid(),
      session_id: this.#options.sessionId,
    });
  }
}

/** A server's status without the init's `source` (`mcp_status` says `scope`). */
function withoutSource(info: McpServerInfo): Omit<McpServerInfo, 'source'> {
  const { source: _source, ...rest } = info;
  return rest;
}
