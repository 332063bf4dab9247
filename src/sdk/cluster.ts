/**
 * The cluster engine of `query()` (`options.cluster`): the session runs on the worker pool of a
 * Redis, exactly as for a client of `serve --redis`: the prompt's user messages and the control
 * requests go to the session's inbox, a worker runs it, and the stream is the session's log (with
 * its live deltas) read from Redis. The worker's requests to the client come back through the log
 * and are answered here: `can_use_tool` with `canUseTool`, `hook_callback` with `hooks` (sent in an
 * `initialize` request first, as the official SDK does).
 *
 * `resume: <session id>` goes on with a session of the cluster: the stream starts after what its
 * log holds. Redis unreachable, no worker taking the session, or Redis lost for good mid-stream:
 * one error `result` whose `errors` say why (and the same line on `stderr`), never a hang.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { ControlRequest, OutboundRequest } from '../messages/control.ts';
import type { AgentMessage } from '../messages/types.ts';
import { parseOutputValue } from '../messages/output-line.ts';
import { AsyncMessageQueue } from '../pipeline/queue.ts';
import { setupErrorResult } from '../session/open.ts';
import type { HookCallback, HookInput } from '../tools/hooks/types.ts';
import { ClusterClient } from '../cluster/session-client.ts';
import { pause, RedisConnectionError } from '../cluster/connection.ts';
import { jobOptions, type SessionJob } from '../cluster/jobs.ts';
import type { LogMessage } from '../cluster/log/index.ts';
import { isInternal } from '../cluster/log/index.ts';
import { Counter, promptMessages } from './prompt-input.ts';
import type { ClusterOptions, Engine, PromptMessage, QueryOptions } from './types.ts';
import { UUID_PATTERN } from '../messages/ids.ts';

/** Lines of a log a library client is never given: the worker's markers, transcript-only lines, the protocol's own. */
const isHidden = (m: LogMessage): boolean => isInternal(m) || m.type === 'keep_alive' || m.type === 'transcript_mirror';

type Pending = { resolve: (r: Record<string, unknown> | undefined) => void; reject: (e: Error) => void };

/** Checks the options a cluster session can take; throws a TypeError for what cannot reach a worker. */
function checkOptions(options: QueryOptions & { cluster: ClusterOptions }): void {
  const { cluster } = options;
  if (typeof cluster.redis !== 'string' || !/^rediss?:\/\//.test(cluster.redis))
    throw new TypeError('query(): options.cluster.redis must be a redis:// or rediss:// URL');
  if (options.executable) throw new TypeError('query(): give either options.executable or options.cluster, not both');
  const refuse = (name: string, why: string): never => {
    throw new TypeError(`query(): option "${name}" cannot be used with options.cluster: ${why}`);
  };
  if (options.extraTools?.length) refuse('extraTools', 'tools in this process cannot run on a worker');
  if (options.script !== undefined && typeof options.script !== 'string')
    refuse('script', 'give the path of a script file the workers can read');
  if (options.continue) refuse('continue', 'name the session with resume: <session id>');
  if (options.forkSession) refuse('forkSession', 'a cluster session has one history');
  if (options.resumeSessionAt) refuse('resumeSessionAt', 'a cluster session has one history');
  if (options.resume !== undefined && !UUID_PATTERN.test(options.resume))
    refuse('resume', 'give the id of a session of the cluster (a UUID)');
  if (options.sessionId !== undefined && !UUID_PATTERN.test(options.sessionId))
    refuse('sessionId', 'it must be a UUID');
  if (options.resume && options.sessionId) refuse('sessionId', 'resume names the session already');
  if (options.env || options.apiKey)
    refuse(options.env ? 'env' : 'apiKey', 'workers use their own environment and keys');
}

/** Hook callbacks with the ids an `initialize` request gives the worker. */
function hookRegistry(options: QueryOptions, prefix: string) {
  const callbacks = new Map<string, HookCallback>();
  const hooks: Record<string, Array<{ matcher?: string; hookCallbackIds: string[]; timeout?: number }>> = {};
  for (const [event, matchers] of Object.entries(options.hooks ?? {})) {
    for (const { matcher, hooks: fns, timeout } of matchers ?? []) {
      const ids = fns.map((fn) => {
        const id = `${prefix}_hook_${callbacks.size}`;
        callbacks.set(id, fn);
        return id;
      });
      (hooks[event] ??= []).push({
        ...(matcher ? { matcher } : {}),
        hookCallbackIds: ids,
        ...(timeout ? { timeout } : {}),
      });
    }
  }
  return { callbacks, initialize: callbacks.size ? { subtype: 'initialize', hooks } : undefined };
}

/** Starts the session on the cluster; options a worker cannot take throw (as the other engines' setup errors). */
export async function startCluster(
  prompt: string | AsyncIterable<PromptMessage>,
  options: QueryOptions & { cluster: ClusterOptions },
): Promise<Engine> {
  checkOptions(options);
  const log = options.stderr ?? (() => {});
  const sessionId = options.resume ?? options.sessionId ?? randomUUID();
  const queue = new AsyncMessageQueue<AgentMessage>({ highWaterMark: 256 });
  const failed = async (message: string): Promise<Engine> => {
    log(`agentpipe: error: ${message}`);
    await queue.push(setupErrorResult(message, sessionId));
    queue.done();
    return {
      messages: queue,
      control: (request) => Promise.reject(new Error(`cannot send ${request.subtype}: ${message}`)),
      endInput: () => undefined,
      close: () => void queue.return(),
    };
  };

  let client: ClusterClient;
  try {
    client = await ClusterClient.open({ redis: options.cluster.redis, log });
  } catch (error) {
    if (error instanceof RedisConnectionError) return failed(error.message);
    throw error;
  }
  let from = '0-0';
  let liveFrom = '0-0';
  try {
    const exists = await client.sessions.exists(sessionId);
    if (options.resume && !exists) {
      await client.close();
      return failed(`no session ${sessionId} in Redis at ${client.where} (never started, archived or deleted)`);
    }
    if (!options.resume && exists) {
      await client.close();
      return failed(
        `session ${sessionId} already exists in Redis at ${client.where}: resume it with resume: "${sessionId}"`,
      );
    }
    if (exists)
      [from, liveFrom] = await Promise.all([client.sessions.lastId(sessionId), client.sessions.lastLiveId(sessionId)]);
  } catch (error) {
    await client.close();
    if (error instanceof RedisConnectionError) return failed(error.message);
    throw error;
  }

  const prefix = `cq_${randomUUID().slice(0, 8)}`;
  const { callbacks, initialize } = hookRegistry(options, prefix);
  const stop = new AbortController();
  const pending = new Map<string, Pending>();
  const aborts = new Map<string, AbortController>();
  const results = new Counter();
  let sent = 0;
  let nextId = 0;
  let inputEnded = false;
  let seen = false;

  const push = (lines: object[]): Promise<void> =>
    client.push(
      sessionId,
      lines.map((l) => JSON.stringify(l)),
    );
  const endInput = (): void => {
    if (inputEnded || stop.signal.aborted) return;
    inputEnded = true;
    push([{ type: 'end_input' }]).catch((error: unknown) =>
      log(`agentpipe: cannot end the session's input: ${(error as Error).message}`),
    );
  };

  /** Answers a request of the worker (its answer goes to the inbox). */
  async function answer(request: ControlRequest<OutboundRequest>): Promise<void> {
    const abort = new AbortController();
    aborts.set(request.request_id, abort);
    let response: object;
    try {
      const r = request.request;
      let payload: Record<string, unknown>;
      if (r.subtype === 'can_use_tool' && options.canUseTool) {
        payload = {
          ...(await options.canUseTool(r.tool_name, r.input, {
            signal: abort.signal,
            toolUseId: r.tool_use_id,
            suggestions: r.permission_suggestions ?? [],
            parentToolUseId: null,
          })),
        };
      } else if (r.subtype === 'hook_callback' && callbacks.has(r.callback_id)) {
        const output = await callbacks.get(r.callback_id)!(r.input as HookInput, r.tool_use_id, {
          signal: abort.signal,
        });
        payload = { ...(output ?? {}) };
      } else if (r.subtype === 'hook_callback') {
        // Registered by an earlier client of this session: said at once rather than left to time out.
        throw new Error(`no hook callback ${r.callback_id} in this client`);
      } else throw new Error(`Unsupported control request subtype: ${r.subtype}`);
      response = { subtype: 'success', request_id: request.request_id, response: payload };
    } catch (error) {
      response = { subtype: 'error', request_id: request.request_id, error: (error as Error).message };
    } finally {
      aborts.delete(request.request_id);
    }
    if (!stop.signal.aborted) await push([{ type: 'control_response', response }]);
  }

  /** Routes one log entry: control traffic to its handler, messages to the stream; true at the end of the run. */
  async function route(id: string, message: LogMessage): Promise<boolean> {
    seen = true;
    if (message.type === 'agentpipe_session_end') {
      // The end of this run when nothing came after it (an earlier run's end is history).
      return (await client.sessions.lastId(sessionId)) === id;
    }
    if (isHidden(message)) return false;
    const parsed = parseOutputValue(message);
    if (!parsed.ok) {
      log(`agentpipe: log entry ${id} of session ${sessionId} ignored (${parsed.error})`);
      return false;
    }
    const line = parsed.line;
    if (line.type === 'control_response') {
      const entry = pending.get(line.response.request_id);
      pending.delete(line.response.request_id);
      if (line.response.subtype === 'success') entry?.resolve(line.response.response);
      else entry?.reject(new Error(line.response.error));
    } else if (line.type === 'control_request') {
      answer(line).catch((error: unknown) =>
        log(`agentpipe: cannot answer ${line.request.subtype}: ${(error as Error).message}`),
      );
    } else if (line.type === 'control_cancel_request') aborts.get(line.request_id)?.abort();
    else if (line.type === 'message') {
      await queue.push(line.message);
      if (line.message.type === 'result') results.add();
    }
    return false;
  }

  /** Follows the log until the run ends, `close()`, or Redis is lost for good. */
  async function read(): Promise<string | undefined> {
    const live = options.includePartialMessages ? { fromId: liveFrom } : undefined;
    try {
      for await (const { entry } of client.follow(sessionId, from, stop.signal, live))
        if (await route(entry.id, entry.message)) return undefined;
      return undefined;
    } catch (error) {
      return stop.signal.aborted ? undefined : (error as Error).message;
    }
  }

  async function feed(): Promise<void> {
    try {
      for await (const message of promptMessages(prompt)) {
        if (stop.signal.aborted || inputEnded) return;
        await push([{ ...message, uuid: message.uuid ?? randomUUID() }]);
        sent++;
      }
    } catch (error) {
      log(`agentpipe: prompt input failed: ${(error as Error).message}`);
    }
    await results.reached(sent);
    endInput();
  }

  /** Fails the start when no worker took the session in time. */
  async function watchStart(ms: number): Promise<string | undefined> {
    await pause(ms, stop.signal);
    if (stop.signal.aborted || seen || (await client.sessions.owner(sessionId).catch(() => null))) return undefined;
    const workers = await client.workers().catch(() => undefined);
    return (
      `no agentpipe worker took session ${sessionId} within ${ms} ms (${workers ?? 'unknown'} ` +
      `worker${workers === 1 ? '' : 's'} connected to ${client.where}): ` +
      `start one with \`agentpipe worker --redis <url>\``
    );
  }

  const job: SessionJob = {
    sessionId,
    options: jobOptions({
      ...options,
      ...(typeof options.script === 'string' ? { script: path.resolve(options.script) } : {}),
    }),
    stream: {
      ...(options.canUseTool ? { permissionPromptTool: 'stdio' } : {}),
      ...(options.replayUserMessages ? { replayUserMessages: true } : {}),
    },
  };
  const startTimeout = options.cluster.startTimeoutMs ?? 30_000;
  try {
    if (initialize) await push([{ type: 'control_request', request_id: `${prefix}_init`, request: initialize }]);
    await client.start(job, startTimeout, stop.signal);
  } catch (error) {
    await client.close();
    const message =
      error instanceof RedisConnectionError
        ? error.message
        : `cannot start session ${sessionId}: ${(error as Error).message}`;
    return failed(message);
  }

  let closing: Promise<void> = Promise.resolve();
  let problemSaid = false;
  /** Ends the stream with one error result for the prompt that has none yet. */
  const fail = async (problem: string): Promise<void> => {
    if (problemSaid || stop.signal.aborted) return;
    problemSaid = true;
    log(`agentpipe: error: ${problem}`);
    if (results.value < Math.max(sent, 1)) await queue.push(setupErrorResult(problem, sessionId));
    stop.abort();
  };
  void watchStart(startTimeout).then((problem) => (problem ? fail(problem) : undefined));
  void feed();
  void read().then(async (problem) => {
    if (problem) await fail(problem);
    stop.abort();
    results.releaseAll();
    for (const entry of pending.values()) entry.reject(new Error(`session ${sessionId}: its run ended`));
    pending.clear();
    for (const abort of aborts.values()) abort.abort();
    await closing;
    await client.close();
    queue.done();
  });

  return {
    messages: queue,
    control(request) {
      if (stop.signal.aborted)
        return Promise.reject(new Error(`cannot send ${request.subtype}: the session's run ended`));
      const requestId = `${prefix}_${++nextId}`;
      return new Promise((resolve, reject) => {
        pending.set(requestId, { resolve, reject });
        push([{ type: 'control_request', request_id: requestId, request }]).catch((error: unknown) => {
          pending.delete(requestId);
          reject(error as Error);
        });
      });
    },
    endInput,
    close() {
      if (!stop.signal.aborted && !inputEnded) {
        // The query is over: the worker stops its prompt and ends the run.
        inputEnded = true;
        closing = push([
          { type: 'control_request', request_id: `${prefix}_close`, request: { subtype: 'interrupt' } },
          { type: 'end_input' },
        ]).catch(() => undefined);
      }
      stop.abort();
      void queue.return();
    },
  };
}
