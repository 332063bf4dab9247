/**
 * What a front end hands a worker: the BullMQ queue (prefix `agentpipe`, queue `sessions`, so its
 * keys are `agentpipe:sessions:*`) and the job data `{sessionId, options, stream}`, validated
 * when read back (job data is outside data). Credentials are never in a job: a worker uses its
 * own environment (ANTHROPIC_API_KEY, ...).
 */
import type { SessionOptions } from '../session/options.ts';
import { SerializableOptionsSchema } from '../session/options-schema.ts';
import { issuesOf } from '../messages/issues.ts';
import { UUID_PATTERN } from '../messages/ids.ts';
import { MAX_TIMER_MS } from '../process/env-number.ts';
import { isRecord } from '../process/guards.ts';

/** The BullMQ key prefix and queue name: keys `agentpipe:sessions:*` (BullMQ forbids `:` in queue names). */
export const QUEUE = { prefix: 'agentpipe', name: 'sessions' } as const;

/**
 * The queue of warm sessions (keys `agentpipe:warm:*`): a front end queues one session ahead of its next
 * connection, a worker opens it and waits on its inbox, so the connection's first prompt finds it running.
 * Separate from the sessions queue so a warm session never holds one of a worker's `concurrency` slots.
 */
export const WARM_QUEUE = { prefix: QUEUE.prefix, name: 'warm' } as const;

/** Failed jobs are kept a day (to be looked at), finished ones not at all. */
export const FAILED_JOBS_KEPT = { age: 24 * 3600 } as const;

/** The options of a session's job, on either queue: its id is the session's, so a session has one job at a time. */
export function sessionJobOptions(sessionId: string): {
  jobId: string;
  removeOnComplete: true;
  removeOnFail: { age: number };
} {
  return { jobId: sessionId, removeOnComplete: true, removeOnFail: FAILED_JOBS_KEPT };
}

/** How the session talks to its client (the stream-json flags that are not session options). */
export interface StreamFlags {
  replayUserMessages?: boolean;
  permissionPromptTool?: string;
  awaitInitialize?: boolean;
}

/** The data of one session job. */
export interface SessionJob {
  sessionId: string;
  /** The serializable session options the front end got (model, script, cwd, permission mode...). */
  options: SessionOptions;
  stream: StreamFlags;
  /**
   * A warm session's (WARM_QUEUE): its run ends, leaving nothing in Redis, when no input line came within this
   * many ms (no client took it).
   */
  warmMs?: number;
  /**
   * The W3C trace context the session's prompts run under when their input line carries none (`_meta`): the caller's
   * (`query({ cluster, telemetry: { traceparent } })`, TRACEPARENT), so a worker's spans join the caller's trace.
   */
  trace?: { traceparent: string; tracestate?: string };
}

/** The options a front end must not send: the cluster owns the session's id and history. */
export { CLUSTER_OWNED_OPTIONS } from '../session/options-schema.ts';

/** The options a job may carry (the one definition, session/options-schema.ts), each optional. */
const JobOptionsSchema = SerializableOptionsSchema.partial();
const OPTION_SHAPES = SerializableOptionsSchema.shape;

/** Whether `key` names an option a job carries. */
const isJobOption = (key: string): key is keyof typeof OPTION_SHAPES => Object.hasOwn(OPTION_SHAPES, key);

/** The JSON-serializable part of `options` that a job carries (functions, env, ids and resume options left out). */
export function jobOptions(options: SessionOptions): SessionOptions {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined && isJobOption(key) && OPTION_SHAPES[key].safeParse(value).success) out[key] = value;
  }
  // JSON, as the job will hold it (an object's functions and undefined fields left out).
  const json: unknown = JSON.parse(JSON.stringify(out));
  return JobOptionsSchema.parse(json);
}

/** A job's options as read from Redis; throws an Error naming the bad field. */
function parseJobOptions(options: Record<string, unknown>): SessionOptions {
  const present = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined && v !== null));
  for (const key of Object.keys(present))
    if (!isJobOption(key)) throw new Error(`job data: option ${key} is not one a worker accepts`);
  const parsed = JobOptionsSchema.safeParse(present);
  if (!parsed.success) throw new Error(`job data: ${issuesOf(parsed.error, 'options')}`);
  return parsed.data;
}

/** The data of an archive job: archive this session once it has been idle long enough. */
export interface ArchiveJob {
  sessionId: string;
}

/** The id of a session's archive job (one waits per session at most). */
export const archiveJobId = (sessionId: string): string => `archive-${sessionId}`;

/** Checks archive job data read from Redis. */
export function parseArchiveJob(data: unknown): ArchiveJob {
  if (!isRecord(data) || typeof data.sessionId !== 'string' || !UUID_PATTERN.test(data.sessionId))
    throw new Error('archive job data: sessionId is not a UUID');
  return { sessionId: data.sessionId };
}

/** Checks job data read from Redis; throws an Error naming the bad field. */
export function parseSessionJob(data: unknown): SessionJob {
  if (!isRecord(data)) throw new Error('job data is not an object');
  const { sessionId, options, stream, warmMs, trace } = data;
  if (typeof sessionId !== 'string' || !UUID_PATTERN.test(sessionId))
    throw new Error(`job data: sessionId is not a UUID: ${JSON.stringify(sessionId)}`);
  if (!isRecord(options)) throw new Error('job data: options is not an object');
  const checked = parseJobOptions(options);
  const flags: StreamFlags = {};
  if (stream !== undefined) {
    if (!isRecord(stream)) throw new Error('job data: stream is not an object');
    if (stream.replayUserMessages !== undefined) flags.replayUserMessages = stream.replayUserMessages === true;
    if (stream.awaitInitialize !== undefined) flags.awaitInitialize = stream.awaitInitialize === true;
    if (stream.permissionPromptTool !== undefined) {
      if (stream.permissionPromptTool !== 'stdio')
        throw new Error('job data: stream.permissionPromptTool must be "stdio"');
      flags.permissionPromptTool = 'stdio';
    }
  }
  if (warmMs !== undefined && (typeof warmMs !== 'number' || !(warmMs >= 1 && warmMs <= MAX_TIMER_MS)))
    throw new Error(
      `job data: warmMs should be a positive number of ms up to ${MAX_TIMER_MS}, ` +
        `not ${JSON.stringify(warmMs).slice(0, 80)}`,
    );
  return { sessionId, options: checked, stream: flags, ...(warmMs ? { warmMs } : {}), ...traceOf(trace) };
}

/** A W3C `traceparent` (version 00's shape; what contextOf reads) and a `tracestate` of a sane length. */
const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/** A job's trace context, checked: one that is malformed is left out (the prompts start a new trace). */
function traceOf(trace: unknown): Pick<SessionJob, 'trace'> {
  if (!isRecord(trace) || typeof trace.traceparent !== 'string' || !TRACEPARENT.test(trace.traceparent)) return {};
  const tracestate =
    typeof trace.tracestate === 'string' && trace.tracestate.length <= 512 ? { tracestate: trace.tracestate } : {};
  return { trace: { traceparent: trace.traceparent, ...tracestate } };
}
