/**
 * The `tool_use_meta` of an assistant message, as Claude Code 2.1.332 sends it for a call of an MCP
 * tool (`mcp__<server>__<tool>`): the call's id and display name (the tool part of the name,
 * capitalized), and, when the session has that tool, its own name and its server's display name.
 * Other calls get none.
 */
import type { AssistantContentBlock, ToolUseMeta } from '../messages/types.ts';
import type { Tool } from '../tools/types.ts';
import type { McpTool } from '../tools/mcp/tool.ts';

const isMcpTool = (tool: Tool | undefined): tool is McpTool =>
  tool !== undefined && 'serverDisplayName' in tool && typeof tool.serverDisplayName === 'function';

/** The meta entries of `block` (one for an MCP tool call), or undefined. */
export function toolUseMeta(block: AssistantContentBlock, tools: readonly Tool[]): ToolUseMeta[] | undefined {
  if (block.type !== 'tool_use') return undefined;
  const match = /^mcp__.+?__(.+)$/.exec(block.name);
  if (!match) return undefined;
  const part = match[1]!;
  const tool = tools.find((t) => t.name === block.name);
  const meta: ToolUseMeta = { id: block.id, display_name: part.charAt(0).toUpperCase() + part.slice(1) };
  if (isMcpTool(tool)) {
    meta.tool_name = tool.mcpTool;
    meta.server_display_name = tool.serverDisplayName();
  }
  return [meta];
}
