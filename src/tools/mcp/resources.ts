/**
 * MCP resources, as Claude Code offers them: `ListMcpResourcesTool` ({server?}) and
 * `ReadMcpResourceTool` ({server, uri}), both read-only, present while a connected server
 * offers resources; and the reads behind them that the control requests share.
 */
import { errorMessage } from '../../process/errors.ts';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ImageBlock, TextBlock } from '../../messages/types.ts';
import { objectSchema, optionalString, requireString } from '../input.ts';
import type { Tool, ToolResult } from '../types.ts';
import { mcpTimeouts } from './config.ts';
import type { McpManager } from './manager.ts';

export const LIST_RESOURCES_TOOL = 'ListMcpResourcesTool';
export const READ_RESOURCE_TOOL = 'ReadMcpResourceTool';
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Time limit of one resources request. */
export const resourceTimeoutMs = mcpTimeouts.resourceMs;

/** Resources of one server or of every server that has some, each with its `server`. */
export async function listResources(manager: McpManager, server?: string): Promise<Array<Record<string, unknown>>> {
  const connections = server === undefined ? manager.resourceServers() : [manager.server(server)];
  const lists = await Promise.all(
    connections.map(async (c) => (await c.listResources(resourceTimeoutMs())).map((r) => ({ ...r, server: c.name }))),
  );
  return lists.flat();
}

/** `resources/read` on one server. */
export function readResource(
  manager: McpManager,
  server: unknown,
  uri: unknown,
  signal?: AbortSignal,
): Promise<ReadResourceResult> {
  if (typeof uri !== 'string' || !uri) throw new Error('uri must be a non-empty string');
  return manager.server(server).readResource(uri, signal, resourceTimeoutMs());
}

/** The two resource tools of a manager. */
export function resourceTools(manager: McpManager): Tool[] {
  const list: Tool = {
    name: LIST_RESOURCES_TOOL,
    description:
      'Lists the resources (files, documents, data) that the connected MCP servers offer: uri, name, mimeType, ' +
      'description and server. ' +
      'Give "server" to list one server only. Read one with ReadMcpResourceTool.',
    inputSchema: objectSchema({ server: { type: 'string', description: 'Only the resources of this MCP server' } }),
    isReadOnly: () => true,
    async call(input): Promise<ToolResult> {
      try {
        const resources = await listResources(manager, optionalString(input, 'server'));
        if (resources.length === 0)
          return {
            content: 'No resources found. MCP servers may still offer tools even when they have no resources.',
            data: [],
          };
        return { content: JSON.stringify(resources), data: resources };
      } catch (error) {
        return { content: failure(error), isError: true };
      }
    },
  };
  const read: Tool = {
    name: READ_RESOURCE_TOOL,
    description:
      'Reads one resource of an MCP server by its URI (see ListMcpResourcesTool). Text comes back as text, ' +
      'images as images.',
    inputSchema: objectSchema(
      {
        server: { type: 'string', description: 'The MCP server name' },
        uri: { type: 'string', description: 'The resource URI to read' },
      },
      ['server', 'uri'],
    ),
    isReadOnly: () => true,
    async call(input, context): Promise<ToolResult> {
      try {
        const result = await readResource(
          manager,
          requireString(input, 'server'),
          requireString(input, 'uri'),
          context.signal,
        );
        return { content: resourceBlocks(result), data: { contents: result.contents } };
      } catch (error) {
        if (context.signal.aborted) throw error;
        return { content: failure(error), isError: true };
      }
    },
  };
  return [list, read];
}

/** Text items as text, images as image blocks, other binary items as a short note. */
function resourceBlocks(result: ReadResourceResult): string | Array<TextBlock | ImageBlock> {
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const item of result.contents) {
    if ('text' in item && typeof item.text === 'string') blocks.push({ type: 'text', text: item.text });
    else if ('blob' in item && typeof item.blob === 'string' && item.mimeType && IMAGE_TYPES.has(item.mimeType)) {
      blocks.push({
        type: 'image',
        source: { type: 'base64', media_type: item.mimeType as ImageBlock['source']['media_type'], data: item.blob },
      });
    } else {
      const size = 'blob' in item && typeof item.blob === 'string' ? Buffer.byteLength(item.blob, 'base64') : 0;
      blocks.push({
        type: 'text',
        text: `[binary resource ${item.uri}${item.mimeType ? ` (${item.mimeType})` : ''}, ${size} bytes]`,
      });
    }
  }
  if (blocks.length === 0) return '(the resource is empty)';
  return blocks.every((b) => b.type === 'text') ? blocks.map((b) => (b as TextBlock).text).join('\n') : blocks;
}

function failure(error: unknown): string {
  return errorMessage(error);
}
