/** The built-in tools, in the order `system/init` lists them. */
import type { Tool } from '../types.ts';
import { bashTool } from './bash.ts';
import { editTool } from './edit.ts';
import { globTool } from './glob.ts';
import { grepTool } from './grep.ts';
import { notebookEditTool } from './notebook-edit.ts';
import { readTool } from './read.ts';
import { taskCreateTool, taskGetTool, taskListTool, taskUpdateTool } from './tasks.ts';
import { todoWriteTool } from './todo-write.ts';
import { webFetchTool } from './web-fetch.ts';
import { isWebSearchAvailable, webSearchTool } from './web-search.ts';
import { writeTool } from './write.ts';
import type { ModelProvider } from '../../model/types.ts';

/** agentpipe's versions of Claude Code's tools, in the order `system/init` lists them. */
const BUILTIN: readonly Tool[] = [
  bashTool,
  editTool,
  globTool,
  grepTool,
  notebookEditTool,
  readTool,
  taskCreateTool,
  taskGetTool,
  taskListTool,
  taskUpdateTool,
  todoWriteTool,
  webFetchTool,
  webSearchTool,
  writeTool,
];

/** Every built-in tool; WebSearch only when `provider` runs Anthropic's server-side search (see web-search.ts). */
export function builtinTools(provider?: ModelProvider): Tool[] {
  const search = provider !== undefined && isWebSearchAvailable(provider);
  return BUILTIN.filter((tool) => tool !== webSearchTool || search);
}

/**
 * True for one of the built-in tools (not a custom, MCP or agent tool): their input is checked as Claude Code checks
 * its own (input-validation.ts).
 */
export const isBuiltinTool = (tool: Tool): boolean => BUILTIN.includes(tool);

/** True for the name of a built-in tool, offered in this session or not. */
export const isBuiltinToolName = (name: string): boolean => BUILTIN.some((tool) => tool.name === name);
