/** Builds the MCP SDK transport of one server config (the SDK modules load only here). */
import path from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from './config.ts';
import { ControlChannelTransport, type McpMessageSender } from './control-transport.ts';

/** A transport and, for child processes, the tail of their stderr (for error messages). */
export interface OpenedTransport {
  transport: Transport;
  stderrTail(): string;
}

export async function openTransport(
  name: string,
  config: McpServerConfig,
  cwd: string,
  sender?: McpMessageSender,
): Promise<OpenedTransport> {
  const none = () => '';
  switch (config.type) {
    case 'sdk': {
      if (!sender) throw new Error('in-process (sdk) servers need a client on the control channel (stream-json input)');
      return { transport: new ControlChannelTransport(config.name ?? name, sender), stderrTail: none };
    }
    case 'http': {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return {
        transport: new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }),
        stderrTail: none,
      };
    }
    case 'sse': {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return {
        transport: new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }),
        stderrTail: none,
      };
    }
    default: {
      const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      // As the MCP SDK does by default: a few safe variables (PATH, HOME, USER ...) plus the
      // server's configured env; never agentpipe's keys or the rest of its environment.
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: config.cwd ? path.resolve(cwd, config.cwd) : cwd,
        stderr: 'pipe',
      });
      let tail = '';
      transport.stderr?.on('data', (chunk: Buffer | string) => {
        tail = (tail + String(chunk)).slice(-2000);
      });
      return { transport, stderrTail: () => tail.trim().split('\n').slice(-5).join('\n') };
    }
  }
}
