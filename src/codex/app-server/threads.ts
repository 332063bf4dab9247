/**
 * Opening threads (thread/start, thread/resume, thread/fork) from their params and the server's
 * options, and finding saved ones (thread/list, thread/read): a thread is an agentpipe session, so
 * the saved threads are the transcripts of `$AGENTPIPE_HOME/projects/`, whichever entry point
 * wrote them.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { RpcError } from '../../messages/json-rpc.ts';
import { newUuid } from '../../messages/ids.ts';
import { chooseProvider, DEFAULT_ANTHROPIC_MODEL } from '../../model/resolve.ts';
import { agentpipeHome, transcriptPath } from '../../session/paths.ts';
import { readSavedSession, savedSessions, type SavedSession, type SessionInfo } from '../../acp/saved.ts';
import { CodexConfigError, codexSettings, configMap, flattenConfig } from '../config-options.ts';
import {
  codexPermissions,
  sessionPermissions,
  sandboxModeOf,
  type CodexApprovalPolicy,
  type CodexPermissions,
} from '../permissions.ts';
import type { AskForApproval, ThreadStartParams } from './params.ts';
import { turnsOf } from './history.ts';
import { CodexThread, previewOf, type ThreadSetup } from './thread.ts';
import type { AppServer } from './server.ts';
import { v2Thread } from './wire.ts';
import { VERSION } from '../../version.ts';

type Settings = Pick<
  z.infer<typeof ThreadStartParams>,
  | 'model'
  | 'modelProvider'
  | 'cwd'
  | 'approvalPolicy'
  | 'sandbox'
  | 'config'
  | 'baseInstructions'
  | 'developerInstructions'
>;

/** The approval policy a client sent, as agentpipe asks: granular policies ask when any part asks. */
export function policyOf(policy: z.infer<typeof AskForApproval> | null | undefined): CodexApprovalPolicy | undefined {
  if (policy === null || policy === undefined) return undefined;
  if (typeof policy === 'string') return policy;
  return Object.values(policy.granular).some(Boolean) ? 'on-request' : 'never';
}

/** The v2 `SandboxPolicy` of a permission mapping. */
export function sandboxPolicy(p: CodexPermissions): Record<string, unknown> {
  if (p.permissionMode === 'bypassPermissions') return { type: 'dangerFullAccess' };
  if (p.permissionMode === 'acceptEdits')
    return {
      type: 'workspaceWrite',
      writableRoots: [],
      networkAccess: p.networkAccess,
      excludeTmpdirEnvVar: false,
      excludeSlashTmp: false,
    };
  return { type: 'readOnly', networkAccess: p.networkAccess };
}

/** What a new thread's session runs with, and what the response says about it. */
export interface Plan {
  setup: Omit<ThreadSetup, 'id' | 'history' | 'preview' | 'name' | 'createdAt' | 'forkedFromId'>;
  permissions: CodexPermissions;
  approvalPolicy: CodexApprovalPolicy;
}

/** The thread's session options from its params over the server's options. */
export function planThread(server: AppServer, p: Settings, ephemeral: boolean, originator: string | null): Plan {
  const o = server.options;
  const cwd = path.resolve(p.cwd ?? o.base.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw RpcError.invalidParams(`cwd ${cwd}: no such folder`);
  let settings;
  try {
    const config = configMap([...o.config, ...flattenConfig(p.config ?? {})]);
    settings = codexSettings(config, o.env, cwd, p.model ?? undefined);
  } catch (error) {
    if (CodexConfigError.isInstance(error)) throw RpcError.invalidParams(error.message);
    throw error;
  }
  if (settings.ignoredKeys.length)
    server.log(`agentpipe app-server: config ${settings.ignoredKeys.join(', ')} has no effect`);
  const approvalPolicy = policyOf(p.approvalPolicy) ?? settings.approvalPolicy ?? 'on-request';
  const sandbox = p.sandbox ?? settings.sandbox;
  const permissions = codexPermissions({
    sandbox: sandbox ?? sandboxModeOf(o.base.permissionMode ?? 'default'),
    approvalPolicy,
    networkAccess: settings.networkAccess,
  });
  // No sandbox asked for: the mode of the command line (plan and dontAsk included) stays.
  if (!sandbox && o.base.permissionMode) permissions.permissionMode = o.base.permissionMode;
  const options = {
    ...o.base,
    ...settings.options,
    ...(p.modelProvider && ['scripted', 'anthropic', 'openai'].includes(p.modelProvider)
      ? { provider: p.modelProvider as 'scripted' | 'anthropic' | 'openai' }
      : {}),
    ...(p.baseInstructions ? { systemPrompt: p.baseInstructions } : {}),
    ...(p.developerInstructions ? { appendSystemPrompt: p.developerInstructions } : {}),
    cwd,
    ...sessionPermissions(permissions, o.base.sandbox),
    ...(ephemeral ? { persistSession: false } : {}),
    env: o.env,
  };
  const provider = chooseProvider(options);
  const model =
    options.model ??
    (provider === 'anthropic'
      ? DEFAULT_ANTHROPIC_MODEL
      : provider === 'openai'
        ? (o.env.OPENAI_MODEL ?? '')
        : 'scripted');
  return {
    setup: {
      cwd,
      options,
      ask: permissions.ask,
      model,
      modelProvider: provider,
      effort: options.effort ?? null,
      ephemeral,
      originator,
      path: null,
    },
    permissions,
    approvalPolicy,
  };
}

/** Opens a thread of `plan` (a new session, or one continuing `from`). */
export function openThread(
  server: AppServer,
  plan: Plan,
  o: {
    id?: string;
    from?: { file: string; fork: boolean; forkedFromId?: string };
    history?: ThreadSetup['history'];
  } & {
    preview?: string;
    name?: string | null;
    createdAt?: number;
  },
): CodexThread {
  const id = o.id ?? newUuid();
  const options = {
    ...plan.setup.options,
    ...(o.from
      ? { resume: o.from.file, ...(o.from.fork ? { forkSession: true, sessionId: id } : {}) }
      : { sessionId: id }),
  };
  const home = agentpipeHome(server.options.env);
  const thread = new CodexThread(
    {
      ...plan.setup,
      id,
      options,
      path: plan.setup.ephemeral ? null : transcriptPath(plan.setup.cwd, id, home),
      history: o.history ?? [],
      preview: o.preview ?? '',
      name: o.name ?? null,
      createdAt: o.createdAt ?? Math.floor(Date.now() / 1000),
      forkedFromId: o.from?.forkedFromId ?? null,
    },
    server,
  );
  server.threads.set(id, thread);
  return thread;
}

/** A saved thread: its session and where it lives. */
export interface SavedThread {
  info: SessionInfo;
  saved: SavedSession;
}

/** The saved session `threadId` (of any folder); undefined when there is none. */
export async function findSaved(server: AppServer, threadId: string): Promise<SavedThread | undefined> {
  const { env, log } = server.options;
  const info = (await savedSessions(undefined, env, log)).find((s) => s.sessionId === threadId);
  if (!info) return undefined;
  const saved = await readSavedSession(threadId, info.cwd, env, log);
  return saved ? { info, saved } : undefined;
}

/** A saved thread as v2 `Thread` (not loaded), with its turns when asked. */
export async function savedThreadInfo(found: SavedThread, withTurns: boolean): Promise<Record<string, unknown>> {
  const { info, saved } = found;
  const updated = Math.floor(Date.parse(info.updatedAt) / 1000);
  const first = saved.log.find((m) => m.type === 'user' && m.isReplay);
  const init = saved.log.find((m) => m.type === 'system' && m.subtype === 'init');
  const turns = withTurns ? (await turnsOf(saved.log, info.sessionId, info.cwd)).map((t) => t.toV2('full')) : [];
  return v2Thread({
    id: info.sessionId,
    cwd: info.cwd,
    preview: first && first.type === 'user' ? previewOf(first.message.content as never) : (info.title ?? ''),
    name: saved.title ?? null,
    model: init && init.type === 'system' && init.subtype === 'init' ? init.model : null,
    modelProvider: 'agentpipe',
    reasoningEffort: null,
    ephemeral: false,
    forkedFromId: null,
    createdAt: updated,
    updatedAt: updated,
    status: { type: 'notLoaded' },
    path: saved.file,
    cliVersion: VERSION,
    originator: null,
    turns,
  });
}
