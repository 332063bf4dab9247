/** Adapts one MCP tool to agentpipe's Tool: `mcp__<server>__<tool>`, results as content blocks. */
import { errorMessage } from '../../process/errors.ts';
import type { CallToolResult, Tool as McpToolDef } from '@modelcontextprotocol/sdk/types.js';
import type { ImageBlock, TextBlock } from '../../messages/types.ts';
import type { Tool, ToolResult } from '../types.ts';
import { mcpToolName } from './config.ts';
import { McpUnavailableError, type McpConnection } from './connection.ts';

/** A Tool backed by an MCP server. */
export interface McpTool extends Tool {
  readonly mcpServer: string;
  readonly mcpTool: string;
  /** The name the server gives itself (its `initialize` answer's serverInfo), else its configured name. */
  serverDisplayName(): string;
}

export function mcpTool(connection: McpConnection, def: McpToolDef, callTimeoutMs: () => number): McpTool {
  const server = connection.name;
  return {
    name: mcpToolName(server, def.name),
    mcpServer: server,
    mcpTool: def.name,
    serverDisplayName: () => connection.serverInfo?.name ?? server,
    description: def.description ?? def.title ?? `${def.name} (MCP server ${server})`,
    inputSchema: (def.inputSchema ?? { type: 'object', properties: {} }) as Record<string, unknown>,
    isReadOnly: () => def.annotations?.readOnlyHint === true,
    // The server's word, not ours to trust with a permission: the check asks (tools/permissions.ts).
    readOnlyClaimed: true,
    async call(input, context): Promise<ToolResult> {
      const timeoutMs = callTimeoutMs();
      try {
        const result = await connection.callTool(def.name, input, context.signal, timeoutMs, context.onOutput, {
          traceparent: context.traceparent,
        });
        return convertResult(result);
      } catch (error) {
        if (context.signal.aborted) throw error;
        return { content: failureText(server, def.name, error, timeoutMs), isError: true };
      }
    },
  };
}

function failureText(server: string, tool: string, error: unknown, timeoutMs: number): string {
  if (McpUnavailableError.isInstance(error)) return `${error.message}; ${tool} could not be called`;
  const code = (error as { code?: number }).code;
  const message = errorMessage(error);
  if (code === -32001) return `MCP tool ${tool} of server "${server}" timed out after ${timeoutMs} ms`;
  if (code === -32000) return `MCP server "${server}" closed the connection during the call to ${tool}`;
  return `MCP tool ${tool} of server "${server}" failed: ${message}`;
}

/** MCP content → what the model sees; images stay images, everything else becomes text. */
export function convertResult(result: CallToolResult): ToolResult {
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        blocks.push({ type: 'text', text: item.text });
        break;
      case 'image':
        blocks.push({
          type: 'image',
          source: { type: 'base64', media_type: item.mimeType as ImageBlock['source']['media_type'], data: item.data },
        });
        break;
      case 'audio':
        blocks.push({
          type: 'text',
          text: `[audio ${item.mimeType}, ${Math.round((item.data.length * 3) / 4)} bytes]`,
        });
        break;
      case 'resource': {
        const r = item.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
        blocks.push({
          type: 'text',
          text:
            r.text !== undefined
              ? r.text
              : `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}, ` +
                `${Math.round(((r.blob ?? '').length * 3) / 4)} bytes]`,
        });
        break;
      }
      case 'resource_link':
        blocks.push({ type: 'text', text: `[resource link ${item.name}: ${item.uri}]` });
        break;
      default:
        blocks.push({ type: 'text', text: JSON.stringify(item) });
    }
  }
  if (blocks.length === 0 && result.structuredContent !== undefined)
    blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  const isError = result.isError === true;
  if (isError) {
    const onlyText = blocks.every((b) => b.type === 'text');
    const content = onlyText ? blocks.map((b) => (b as TextBlock).text).join('\n') : blocks;
    return {
      content: content === '' ? 'The MCP tool reported an error without details' : content,
      isError,
      data: { content: blocks },
    };
  }
  // As Claude Code 2.1.332: the result's blocks, for the model and as the client's tool_use_result.
  return {
    content: blocks,
    data:
      result.structuredContent !== undefined
        ? { content: blocks, structuredContent: result.structuredContent }
        : blocks,
  };
}
