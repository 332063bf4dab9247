/** agentpipe: the library entry point. */
export type * from './messages/types.ts';
export type * from './messages/control.ts';
export type { SessionOptions } from './session/options.ts';
export type { ModelProvider, ModelRequest, ToolSpec } from './model/types.ts';
export type { Tool, ToolContext, ToolResult } from './tools/types.ts';
export { AsyncMessageQueue } from './pipeline/queue.ts';
export { VERSION } from './version.ts';
