/** agentpipe: the library entry point. */
import './runtime-check.ts'; // first: a clear error on an unsupported Node.js
export type * from './messages/types.ts';
export type * from './messages/control.ts';
export type { SessionOptions } from './session/options.ts';
export type { TelemetryOption } from './telemetry/types.ts';
export type { EffortLevel, ModelProvider, ModelRequest, ThinkingConfig, ToolSpec } from './model/types.ts';
export type { SettingSource } from './session/setting-sources.ts';
export type { Tool, ToolContext, ToolResult } from './tools/types.ts';
export { ToolState, type Todo, type Checkpoints } from './tools/state.ts';
export { defineTool } from './tools/define.ts';
export type { DefineToolOptions, ToolBinaryResult, ToolInvocation, ToolResultObject } from './tools/define.ts';
export type {
  McpServerConfig,
  McpStdioServerConfig,
  McpRemoteServerConfig,
  McpSdkServerConfig,
} from './tools/mcp/config.ts';
export type {
  HookCallback,
  HookCallbackMatcher,
  HookCallbacks,
  HookEvent,
  HookInput,
  HookOutput,
} from './tools/hooks/types.ts';
export type { AgentDefinition } from './agent/subagent.ts';
export type { CanUseTool } from './agent/context.ts';
export { AsyncMessageQueue } from './pipeline/queue.ts';
export { VERSION } from './version.ts';
export { query } from './sdk/query.ts';
export type { QueryParams } from './sdk/query.ts';
export type { Query, QueryOptions, PromptMessage, ModelInfo, ClusterOptions, ConnectOptions } from './sdk/types.ts';
export {
  isResultMessage,
  isSystemInitMessage,
  getMessageContentBlocks,
  getMessageText,
  getSystemInitData,
  getPermissionDenials,
} from './sdk/helpers.ts';
export { Agent } from './sdk/agent.ts';
export type { AgentOptions, RunResult, CommandResult } from './sdk/agent.ts';
export { AcpUpdateProjector, toAcpUpdates } from './sdk/acp-updates.ts';
export type * from './sdk/acp-types.ts';
export { LifecycleTracker, LIFECYCLE_REASONS } from './sdk/lifecycle.ts';
export type { LifecycleEvent, LifecycleReason, SandboxLifecycleState, AgentRuntimeState } from './sdk/lifecycle.ts';
export { SessionEventProjector, isEventOf, toSessionEvents } from './sdk/session-events.ts';
export type { SessionEvent, SessionEventDataMap, SessionEventType, ToolRequest } from './sdk/session-events.ts';
export { AgentpipeError } from './process/errors.ts';
export { SessionSetupError } from './session/open.ts';
export { CodexItemProjector, toCodexItemEvents } from './codex/projector.ts';
export type {
  CodexItem,
  ItemEvent as CodexItemEvent,
  FileChange as CodexFileChange,
  PlanStep as CodexPlanStep,
} from './codex/items.ts';
export type { ExecThreadEvent, ExecThreadItem, ExecUsage } from './messages/codex/exec-events.ts';
