/**
 * One MCP server: its client, status and tool list. `connect` never throws (a server that
 * fails to start is `failed`); a server that closes on its own is announced by `onCrash`.
 */
import { AgentpipeError, errorMessage } from '../../process/errors.ts';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  CallToolResult,
  ReadResourceResult,
  Resource,
  Tool as McpToolDef,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServerInfo } from '../../messages/types.ts';
import { VERSION } from '../../version.ts';
import type { McpServerConfig } from './config.ts';
import { ControlChannelTransport, type McpMessageSender } from './control-transport.ts';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { openTransport, type OpenedTransport } from './transports.ts';
import type { SandboxConfig } from '../../sandbox/config.ts';

export type McpStatus = McpServerInfo['status'];
/** Where a server came from: flags/options, `mcp_set_servers`, or the SDK's in-process list. */
export type McpSource = 'config' | 'dynamic' | 'sdk';

/** An MCP call that cannot be made or failed at the connection level (message names the server). */
export class McpUnavailableError extends AgentpipeError {
  static override readonly errorName: string = 'McpUnavailableError';
}

export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly source: McpSource;
  status: McpStatus = 'pending';
  error?: string;
  serverInfo?: { name: string; version: string };
  tools: McpToolDef[] = [];
  /** True while the manager's first connection attempt runs. */
  connecting = false;
  /** Called when the server went away on its own. */
  onCrash?: (connection: McpConnection) => void;
  #client?: Client;
  #opened?: OpenedTransport;
  #generation = 0;
  #stopping?: Promise<void>;
  /** The resource list, kept until the server says it changed (or the client changes). */
  #resources?: { client: Client; list: Promise<Resource[]> };

  constructor(name: string, config: McpServerConfig, source: McpSource) {
    this.name = name;
    this.config = config;
    this.source = source;
  }

  /** (Re)connects; resolves when connected or failed (after at most `timeoutMs`). */
  async connect(cwd: string, timeoutMs: number, sender?: McpMessageSender, sandbox?: SandboxConfig): Promise<void> {
    await this.close();
    const generation = ++this.#generation;
    this.status = 'pending';
    this.error = undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`connection timed out after ${timeoutMs} ms`)), timeoutMs);
      });
      const opening = this.#open(cwd, timeoutMs, sender, generation, sandbox);
      opening.catch(() => {}); // settled by the race; a late failure after a timeout is expected
      await Promise.race([opening, timeout]);
      if (generation !== this.#generation) return;
      this.status = 'connected';
    } catch (error) {
      if (generation !== this.#generation) return;
      const tail = this.#opened?.stderrTail();
      this.status = 'failed';
      this.error = `${errorMessage(error)}${tail ? ` (stderr: ${tail})` : ''}`;
      this.#generation++; // an opening still under way gives up
      this.#stopping = this.#shutdown(); // in the background: a stuck child takes seconds to stop
    } finally {
      clearTimeout(timer);
    }
  }

  /** Delivers a message an in-process (sdk) server sent on its own, over the control channel. */
  receive(message: JSONRPCMessage): void {
    const transport = this.#opened?.transport;
    if (!(transport instanceof ControlChannelTransport))
      throw new Error(`MCP server "${this.name}" is not an in-process (sdk) server, or is not connected`);
    transport.receive(message);
  }

  async #open(
    cwd: string,
    timeoutMs: number,
    sender: McpMessageSender | undefined,
    generation: number,
    sandbox: SandboxConfig | undefined,
  ): Promise<void> {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const opened = await openTransport(this.name, this.config, cwd, sender, sandbox);
    if (generation !== this.#generation) {
      await opened.transport.close();
      throw new Error('superseded');
    }
    const client = new Client(
      { name: 'agentpipe', version: VERSION },
      {
        capabilities: {},
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (error, tools) => {
              if (!error && tools && this.#client === client) this.tools = tools;
            },
          },
          resources: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => {
              if (this.#resources?.client === client) this.#resources = undefined;
            },
          },
        },
      },
    );
    this.#client = client;
    this.#opened = opened;
    client.onclose = () => this.#closed(client, generation);
    await client.connect(opened.transport, { timeout: timeoutMs });
    this.serverInfo = client.getServerVersion();
    this.tools = client.getServerCapabilities()?.tools
      ? (await client.listTools(undefined, { timeout: timeoutMs })).tools
      : [];
  }

  #closed(client: Client, generation: number): void {
    if (this.#client !== client || generation !== this.#generation || this.status !== 'connected') return;
    const tail = this.#opened?.stderrTail();
    this.status = 'failed';
    this.error = `the server closed the connection${tail ? ` (stderr: ${tail})` : ''}`;
    this.#client = undefined;
    this.onCrash?.(this);
  }

  /** The client of a connected server; throws McpUnavailableError otherwise. */
  #connected(): Client {
    const client = this.#client;
    if (this.status !== 'connected' || !client) {
      throw new McpUnavailableError(
        `MCP server "${this.name}" is ` +
          `${this.status === 'disabled' ? 'disabled' : 'not connected'}${this.error ? ` (${this.error})` : ''}`,
      );
    }
    return client;
  }

  /** True when the server is connected and offers resources. */
  get hasResources(): boolean {
    return this.status === 'connected' && this.#client?.getServerCapabilities()?.resources !== undefined;
  }

  /** Every resource of the server (all pages, at most 100); cached until the server announces a change. */
  listResources(timeoutMs: number): Promise<Resource[]> {
    const client = this.#connected();
    if (!this.hasResources) return Promise.resolve([]);
    if (this.#resources?.client === client) return this.#resources.list;
    const list = (async () => {
      const out: Resource[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 100 && (page === 0 || cursor); page++) {
        const answer = await client.listResources(cursor ? { cursor } : undefined, { timeout: timeoutMs });
        out.push(...answer.resources);
        cursor = answer.nextCursor;
      }
      return out;
    })();
    const entry = { client, list };
    this.#resources = entry;
    list.catch(() => {
      if (this.#resources === entry) this.#resources = undefined; // try again next time
    });
    return list;
  }

  /** Reads one resource (`resources/read`). */
  async readResource(uri: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<ReadResourceResult> {
    const client = this.#connected();
    if (!this.hasResources) throw new McpUnavailableError(`MCP server "${this.name}" offers no resources`);
    return client.readResource({ uri }, { signal, timeout: timeoutMs });
  }

  /**
   * Calls one tool of this server. `trace.traceparent` (telemetry on) goes in the request's `_meta`, as the MCP
   * semantic conventions carry the W3C trace context, so the server's spans join the caller's trace.
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
    onProgress?: (text: string) => void,
    trace: { traceparent?: string } = {},
  ): Promise<CallToolResult> {
    const client = this.#connected();
    const meta = trace.traceparent ? { _meta: { traceparent: trace.traceparent } } : {};
    const result = await client.callTool({ name: tool, arguments: args, ...meta }, undefined, {
      signal,
      timeout: timeoutMs,
      ...(onProgress
        ? {
            onprogress: (p: { progress: number; total?: number; message?: string }) =>
              onProgress(`${p.message ?? `progress ${p.progress}${p.total ? `/${p.total}` : ''}`}\n`),
          }
        : {}),
    });
    return result as CallToolResult;
  }

  /** Stops the server (stdio children: stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.#generation++;
    await Promise.all([this.#shutdown(), this.#stopping]);
    this.#stopping = undefined;
  }

  /** Marks the server disabled and stops it. */
  async disable(): Promise<void> {
    await this.close();
    this.status = 'disabled';
    this.error = undefined;
  }

  async #shutdown(): Promise<void> {
    const client = this.#client;
    const opened = this.#opened;
    this.#client = undefined;
    this.#opened = undefined;
    try {
      if (client) await client.close();
      else await opened?.transport.close();
    } catch {
      // Already gone.
    }
    opened?.release?.();
  }

  /** The `system/init` entry, as Claude Code 2.1.332 lists a server (its tools are the init's `tools`). */
  info(): McpServerInfo {
    return {
      name: this.name,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      source: this.source === 'sdk' ? 'sdk' : 'dynamic',
    };
  }

  /** The names of the server's tools, once connected. */
  toolNames(): string[] | undefined {
    return this.status === 'connected' ? this.tools.map((t) => t.name) : undefined;
  }
}
