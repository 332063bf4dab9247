/** The built-in tools, in the order `system/init` lists them. */
import type { Tool } from '../types.ts';
import { bashTool } from './bash.ts';
import { editTool } from './edit.ts';
import { globTool } from './glob.ts';
import { grepTool } from './grep.ts';
import { readTool } from './read.ts';
import { todoWriteTool } from './todo-write.ts';
import { writeTool } from './write.ts';

export function builtinTools(): Tool[] {
  return [bashTool, editTool, globTool, grepTool, readTool, todoWriteTool, writeTool];
}
