/**
 * The methods `agentpipe app-server` serves, by name; every other one answers -32601 (server.ts).
 * Thread methods: thread-methods.ts. Here: initialize, the turn methods, and what clients read
 * about the server (models, config, account, MCP servers).
 */
import { errorMessage } from '../../process/errors.ts';
import os from 'node:os';
import { RpcError, type RequestId, type RpcTrace } from '../../messages/json-rpc.ts';
import { knownModels } from '../../model/pricing.ts';
import { EFFORT_LEVELS } from '../../model/types.ts';
import { agentpipeHome } from '../../session/paths.ts';
import { VERSION } from '../../version.ts';
import { codexPermissions, sandboxModeOf, type CodexSandboxMode } from '../permissions.ts';
import {
  ConfigReadParams,
  McpServerStatusListParams,
  ModelListParams,
  TurnInterruptParams,
  TurnStartParams,
  TurnSteerParams,
  parseParams,
  type InitializeParams,
  type SandboxPolicy,
} from './params.ts';
import { promptOf } from './input.ts';
import type { AppServer, Connection } from './server.ts';
import { THREAD_METHODS, loadedThread } from './thread-methods.ts';
import { policyOf } from './threads.ts';
import type { z } from 'zod';

/** A method's handler. */
/** A method's handler; `trace`: the W3C trace context of the request's envelope (turn/start's prompt runs under it). */
export type Method = (
  server: AppServer,
  connection: Connection,
  params: unknown,
  id: RequestId,
  trace?: RpcTrace,
) => unknown;

function initialize(server: AppServer, _c: Connection, p: z.infer<typeof InitializeParams>): unknown {
  const platform = process.platform;
  return {
    userAgent: `${p.clientInfo.name}/${VERSION} (agentpipe; ${os.type()} ${os.release()}; ${os.arch()})`,
    codexHome: agentpipeHome(server.options.env),
    platformFamily: platform === 'win32' ? 'windows' : 'unix',
    platformOs: platform === 'darwin' ? 'macos' : platform === 'win32' ? 'windows' : platform,
  };
}

/** The sandbox mode of turn/start's `sandboxPolicy`. */
function sandboxOf(policy: z.infer<typeof SandboxPolicy>): CodexSandboxMode {
  if (policy.type === 'dangerFullAccess' || policy.type === 'externalSandbox') return 'danger-full-access';
  return policy.type === 'workspaceWrite' ? 'workspace-write' : 'read-only';
}

async function turnStart(
  server: AppServer,
  connection: Connection,
  params: unknown,
  _id: RequestId,
  trace?: RpcTrace,
): Promise<unknown> {
  const p = parseParams(TurnStartParams, params, 'turn/start');
  const thread = loadedThread(server, p.threadId);
  if (p.cwd && p.cwd !== thread.cwd)
    throw RpcError.invalidParams(`cwd cannot change within a thread in agentpipe (the thread works in ${thread.cwd})`);
  if (p.outputSchema)
    throw RpcError.invalidParams('outputSchema is not supported per turn by agentpipe app-server; use agentpipe exec');
  if (thread.runningTurn) throw RpcError.invalidRequest(`a turn is already running in thread ${thread.id}`);
  const policy = policyOf(p.approvalPolicy);
  if (p.sandboxPolicy || policy) {
    const mapped = codexPermissions({
      sandbox: p.sandboxPolicy ? sandboxOf(p.sandboxPolicy) : sandboxModeOf(thread.mode),
      approvalPolicy: policy,
      networkAccess: p.sandboxPolicy?.type === 'workspaceWrite' && p.sandboxPolicy.networkAccess === true,
    });
    await thread.configure({
      ...(p.sandboxPolicy ? { mode: mapped.permissionMode } : {}),
      ...(policy ? { ask: mapped.ask } : {}),
    });
  }
  if (p.model) await thread.configure({ model: p.model });
  const content = promptOf(p.input, thread.cwd);
  server.subscribe(thread.id, connection);
  server.own(thread.id, connection);
  const turn = thread.startTurn(content, trace);
  return { turn: turn.toV2('notLoaded', true) };
}

function turnSteer(server: AppServer, _c: Connection, params: unknown): unknown {
  const p = parseParams(TurnSteerParams, params, 'turn/steer');
  const thread = loadedThread(server, p.threadId);
  try {
    return { turnId: thread.steer(promptOf(p.input, thread.cwd), p.expectedTurnId) };
  } catch (error) {
    throw RpcError.invalidRequest(errorMessage(error));
  }
}

async function turnInterrupt(server: AppServer, _c: Connection, params: unknown): Promise<unknown> {
  const p = parseParams(TurnInterruptParams, params, 'turn/interrupt');
  const thread = loadedThread(server, p.threadId);
  if (!(await thread.interrupt(p.turnId)))
    throw RpcError.invalidRequest(`turn ${p.turnId} is not running in thread ${p.threadId}`);
  return {};
}

function modelList(server: AppServer, _c: Connection, params: unknown): unknown {
  const p = parseParams(ModelListParams, params, 'model/list');
  const current = server.options.base.model;
  const ids = [...new Set([...(current ? [current] : []), 'scripted', ...knownModels()])];
  const limit = p.limit ?? ids.length;
  const start = p.cursor ? Number(p.cursor) || 0 : 0;
  const page = ids.slice(start, start + limit);
  const efforts = EFFORT_LEVELS.map((e) => ({ reasoningEffort: e, description: e }));
  return {
    data: page.map((id) => ({
      id,
      model: id,
      upgrade: null,
      upgradeInfo: null,
      availabilityNux: null,
      displayName: id,
      description: id === 'scripted' ? 'the embedded offline model' : '',
      modelSpecialty: null,
      hidden: false,
      supportedReasoningEfforts: id === 'scripted' ? [] : efforts,
      defaultReasoningEffort: 'medium',
      inputModalities: ['text', 'image'],
      supportsPersonality: false,
      multiAgentVersion: null,
      additionalSpeedTiers: [],
      serviceTiers: [],
      defaultServiceTier: null,
      availableAccessPrograms: null,
      isDefault: id === (current ?? 'scripted'),
    })),
    nextCursor: start + limit < ids.length ? String(start + limit) : null,
  };
}

function configRead(server: AppServer, _c: Connection, params: unknown): unknown {
  parseParams(ConfigReadParams, params, 'config/read');
  const base = server.options.base;
  const mode = base.permissionMode ?? 'default';
  return {
    config: {
      model: base.model ?? null,
      review_model: null,
      model_provider: base.provider ?? null,
      approval_policy: 'on-request',
      sandbox_mode: sandboxModeOf(mode),
      sandbox_workspace_write: null,
      web_search: null,
      instructions: base.systemPrompt ?? null,
      developer_instructions: base.appendSystemPrompt ?? null,
      compact_prompt: null,
      model_reasoning_effort: base.effort ?? null,
      model_reasoning_summary: null,
      model_verbosity: null,
      service_tier: null,
      tools: null,
      analytics: null,
    },
    origins: {},
    layers: null,
  };
}

function accountRead(server: AppServer): unknown {
  const env = server.options.env;
  const key = env.CODEX_API_KEY || env.OPENAI_API_KEY || env.ANTHROPIC_API_KEY;
  return { account: key ? { type: 'apiKey' } : null, userId: null, requiresOpenaiAuth: false };
}

async function mcpServerStatusList(server: AppServer, _c: Connection, params: unknown): Promise<unknown> {
  const p = parseParams(McpServerStatusListParams, params, 'mcpServerStatus/list');
  const live = p.threadId ? await loadedThread(server, p.threadId).mcpServers() : undefined;
  const names = live?.map((s) => s.name) ?? Object.keys(server.options.base.mcpServers ?? {});
  const statuses = names
    .filter((name) => !p.serverName || name === p.serverName)
    .map((name) => {
      const status = live?.find((s) => s.name === name);
      return {
        name,
        runtimeStatus: null,
        pluginId: null,
        httpOrigin: null,
        serverInfo: null,
        serverCapabilities: null,
        toolListMeta: null,
        tools: {},
        toolsError: status?.status === 'failed' ? (status.error ?? 'failed') : null,
        resources: [],
        resourceTemplates: [],
        authStatus: 'unsupported',
      };
    });
  return { data: statuses, nextCursor: null };
}

export const METHODS: Record<string, Method> = {
  initialize: (server, connection, params) =>
    initialize(server, connection, params as z.infer<typeof InitializeParams>),
  ...THREAD_METHODS,
  'turn/start': turnStart,
  'turn/steer': turnSteer,
  'turn/interrupt': turnInterrupt,
  'model/list': modelList,
  'config/read': configRead,
  'account/read': accountRead,
  'mcpServerStatus/list': mcpServerStatusList,
};
