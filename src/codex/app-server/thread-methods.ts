/** thread/start, thread/resume, thread/fork, thread/list and thread/read. */
import { RpcError } from '../../messages/json-rpc.ts';
import { savedSessions } from '../../acp/saved.ts';
import {
  ThreadForkParams,
  ThreadListParams,
  ThreadReadParams,
  ThreadResumeParams,
  ThreadStartParams,
  parseParams,
} from './params.ts';
import type { AppServer, Connection } from './server.ts';
import type { Method } from './methods.ts';
import type { CodexThread } from './thread.ts';
import { turnsOf } from './history.ts';
import { findSaved, openThread, planThread, sandboxPolicy, savedThreadInfo, type Plan } from './threads.ts';

/** The loaded thread `threadId`, or -32600 saying how to load it. */
export function loadedThread(server: AppServer, threadId: string): CodexThread {
  const thread = server.threads.get(threadId);
  if (thread) return thread;
  throw RpcError.invalidRequest(`thread ${threadId} is not loaded: start it, or resume it with thread/resume`);
}

/** The fields thread/start, thread/resume and thread/fork answer with. */
function threadResponse(thread: CodexThread, plan: Pick<Plan, 'permissions' | 'approvalPolicy'>, turns: boolean) {
  return {
    thread: thread.info(turns),
    model: thread.model,
    modelProvider: thread.setup.modelProvider,
    serviceTier: null,
    disabledPluginIds: [],
    cwd: thread.cwd,
    instructionSources: [],
    approvalPolicy: plan.approvalPolicy,
    approvalsReviewer: 'user',
    sandbox: sandboxPolicy(plan.permissions),
    reasoningEffort: thread.setup.effort,
  };
}

/** Subscribes the connection and tells it the thread started, after the response (as codex). */
function announce(server: AppServer, connection: Connection, thread: CodexThread): void {
  server.subscribe(thread.id, connection);
  setImmediate(() => void server.sendTo(connection, 'thread/started', { thread: thread.info(false) }));
}

function threadStart(server: AppServer, connection: Connection, params: unknown): unknown {
  const p = parseParams(ThreadStartParams, params, 'thread/start');
  const plan = planThread(server, p, p.ephemeral === true, connection.clientName);
  const thread = openThread(server, plan, {});
  announce(server, connection, thread);
  return threadResponse(thread, plan, false);
}

async function threadResume(server: AppServer, connection: Connection, params: unknown): Promise<unknown> {
  const p = parseParams(ThreadResumeParams, params, 'thread/resume');
  const live = server.threads.get(p.threadId);
  if (live) {
    server.subscribe(live.id, connection);
    const plan = planThread(server, { ...p, cwd: live.cwd }, live.setup.ephemeral, connection.clientName);
    return {
      ...threadResponse(live, plan, p.excludeTurns !== true),
      turnsBackwardsCursor: null,
      itemsBackwardsCursor: null,
    };
  }
  const found = await findSaved(server, p.threadId);
  if (!found) throw RpcError.invalidRequest(`no thread ${p.threadId}`);
  const plan = planThread(server, { ...p, cwd: p.cwd ?? found.info.cwd }, false, connection.clientName);
  const thread = openThread(server, plan, {
    id: p.threadId,
    from: { file: found.saved.file, fork: false },
    history: await turnsOf(found.saved.log, p.threadId, plan.setup.cwd),
    preview: found.info.title ?? '',
    name: found.saved.title ?? null,
    createdAt: Math.floor(Date.parse(found.info.updatedAt) / 1000),
  });
  server.subscribe(thread.id, connection);
  return {
    ...threadResponse(thread, plan, p.excludeTurns !== true),
    turnsBackwardsCursor: null,
    itemsBackwardsCursor: null,
  };
}

async function threadFork(server: AppServer, connection: Connection, params: unknown): Promise<unknown> {
  const p = parseParams(ThreadForkParams, params, 'thread/fork');
  const live = server.threads.get(p.threadId);
  if (live?.runningTurn)
    throw RpcError.invalidRequest(`thread ${p.threadId} has a turn running; fork it after the turn`);
  const found = await findSaved(server, p.threadId);
  if (!found)
    throw RpcError.invalidRequest(`no saved thread ${p.threadId} to fork (an ephemeral thread cannot be forked)`);
  const plan = planThread(server, { ...p, cwd: p.cwd ?? found.info.cwd }, p.ephemeral === true, connection.clientName);
  const thread = openThread(server, plan, {
    from: { file: found.saved.file, fork: true, forkedFromId: p.threadId },
    history: await turnsOf(found.saved.log, p.threadId, plan.setup.cwd),
    preview: found.info.title ?? '',
  });
  announce(server, connection, thread);
  return threadResponse(thread, plan, p.excludeTurns !== true);
}

async function threadList(server: AppServer, _c: Connection, params: unknown): Promise<unknown> {
  const p = parseParams(ThreadListParams, params, 'thread/list');
  const cwds = p.cwd === null || p.cwd === undefined ? undefined : Array.isArray(p.cwd) ? p.cwd : [p.cwd];
  const { env, log } = server.options;
  const saved = await savedSessions(undefined, env, log);
  const byId = new Map<string, Record<string, unknown>>();
  for (const s of saved) {
    if (cwds && !cwds.includes(s.cwd)) continue;
    const found = { info: s, saved: { file: '', log: [], title: s.title ?? undefined, updatedAt: s.updatedAt } };
    byId.set(s.sessionId, await savedThreadInfo(found, false));
  }
  for (const thread of server.threads.values())
    if (!thread.setup.ephemeral && (!cwds || cwds.includes(thread.cwd))) byId.set(thread.id, thread.info(false));
  let data = [...byId.values()].sort((a, b) => Number(b.updatedAt) - Number(a.updatedAt));
  if (p.sortDirection === 'asc') data.reverse();
  if (p.searchTerm) {
    const term = p.searchTerm.toLowerCase();
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    data = data.filter((t) => `${text(t.name)} ${text(t.preview)}`.toLowerCase().includes(term));
  }
  const start = p.cursor ? Number(p.cursor) || 0 : 0;
  const limit = p.limit ?? 50;
  return {
    data: data.slice(start, start + limit),
    nextCursor: start + limit < data.length ? String(start + limit) : null,
    backwardsCursor: null,
  };
}

async function threadRead(server: AppServer, _c: Connection, params: unknown): Promise<unknown> {
  const p = parseParams(ThreadReadParams, params, 'thread/read');
  const live = server.threads.get(p.threadId);
  if (live) return { thread: live.info(p.includeTurns === true) };
  const found = await findSaved(server, p.threadId);
  if (!found) throw RpcError.invalidRequest(`no thread ${p.threadId}`);
  return { thread: await savedThreadInfo(found, p.includeTurns === true) };
}

export const THREAD_METHODS: Record<string, Method> = {
  'thread/start': threadStart,
  'thread/resume': threadResume,
  'thread/fork': threadFork,
  'thread/list': threadList,
  'thread/read': threadRead,
};
