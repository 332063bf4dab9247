/** The options of a query on the worker pool: which it refuses, and the job and hooks it makes of them. */
import path from 'node:path';
import { UUID_PATTERN } from '../../messages/ids.ts';
import type { HookCallback } from '../../tools/hooks/types.ts';
import { jobOptions, type SessionJob } from '../../cluster/jobs.ts';
import type { ClusterOptions, QueryOptions } from '../types.ts';

/** Checks the options a cluster session can take; throws a TypeError for what cannot reach a worker. */
export function checkOptions(options: QueryOptions & { cluster: ClusterOptions }): void {
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

/** The job of the session: its serializable options (a script's path made absolute) and stream flags. */
export function jobOf(sessionId: string, options: QueryOptions): SessionJob {
  return {
    sessionId,
    options: jobOptions({
      ...options,
      ...(typeof options.script === 'string' ? { script: path.resolve(options.script) } : {}),
    }),
    stream: {
      ...(options.canUseTool ? { permissionPromptTool: 'stdio' } : {}),
      ...(options.replayUserMessages ? { replayUserMessages: true } : {}),
    },
    ...traceOf(options),
  };
}

/**
 * The trace context the session's prompts run under on the workers (exporting with their own OTEL_* settings): the
 * `telemetry` option's `traceparent`, else TRACEPARENT when telemetry is on, as a child CLI would read it.
 */
function traceOf(options: QueryOptions): Pick<SessionJob, 'trace'> {
  const telemetry = options.telemetry;
  if (telemetry === undefined || telemetry === false) return {};
  const given = typeof telemetry === 'object' && telemetry.traceparent !== undefined;
  const traceparent = given ? telemetry.traceparent : process.env.TRACEPARENT;
  const tracestate = given ? telemetry.tracestate : process.env.TRACESTATE;
  if (!traceparent) return {};
  return { trace: { traceparent, ...(tracestate ? { tracestate } : {}) } };
}

/** An `initialize` request's hooks: each callback with the id the worker asks it by. */
export interface HookRegistry {
  callbacks: Map<string, HookCallback>;
  initialize?: {
    subtype: 'initialize';
    hooks: Record<string, Array<{ matcher?: string; hookCallbackIds: string[]; timeout?: number }>>;
  };
}

/** Hook callbacks with the ids an `initialize` request gives the worker. */
export function hookRegistry(options: QueryOptions, prefix: string): HookRegistry {
  const callbacks = new Map<string, HookCallback>();
  const hooks: NonNullable<HookRegistry['initialize']>['hooks'] = {};
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
  return { callbacks, ...(callbacks.size ? { initialize: { subtype: 'initialize', hooks } } : {}) };
}
