/**
 * What a session log holds and how it is read back: Redis entries are outside data, parsed here
 * with one schema each (a stream entry, a stored message, an XREAD reply) where they enter. The
 * worker's own lines (the end of a run, the start of a tool call) are parsed in full; the wire
 * messages by their envelope (a string `type`, a string `uuid` if any): they were written by a
 * worker from the typed stream, and the front ends pass them on as they were written.
 */
import { errorMessage } from '../../process/errors.ts';
import { z } from 'zod';
import { ownMessage, type OutputLine } from '../../messages/wire.ts';
import { issuesOf } from '../../messages/issues.ts';
import type { PromptLine, SnapshotLine, TitleLine } from '../../session/transcript-format.ts';
import { STREAM_ID } from './keys.ts';

/** The marker a worker appends when a session's run ends (front ends and `attach` stop there; never sent on). */
export interface SessionEndMarker {
  type: 'agentpipe_session_end';
  session_id: string;
  uuid: string;
  reason: string;
  timestamp: string;
}

/**
 * The journal line a worker appends (and waits for) before a tool call runs: the call's `tool_result` ends it. A run
 * that takes a session over finds a call that started and has no result, and reports its outcome as unknown instead
 * of running it again. Never sent to clients.
 */
export interface ToolStartLine {
  type: 'agentpipe_tool_start';
  session_id: string;
  uuid: string;
  tool_use_id: string;
  tool_name: string;
  /** The Task call of the subagent that makes the call; null for the main agent. */
  parent_tool_use_id: string | null;
  /** The worker that runs it. */
  worker: string;
  timestamp: string;
}

/** What a session log holds: the wire lines, the transcript-only lines, the worker's own lines. */
export type LogMessage = OutputLine | PromptLine | SnapshotLine | TitleLine | SessionEndMarker | ToolStartLine;

/** A message read back with its stream id. */
export interface LogEntry {
  id: string;
  message: LogMessage;
  /** The message as it was stored (JSON): what a front end sends on, without encoding it again. */
  json: string;
  /**
   * A durable message's: the id of the last ephemeral message appended before it ('0-0': none), so a follower
   * knows whether deltas it has not given precede it. Absent on entries appended before it was recorded.
   */
  lastLive?: string;
  /** The owner token of the run that appended it (absent on old entries). */
  owner?: string;
}

/**
 * An ephemeral message read back from the live stream: `after` is the id of the durable message it follows ('0-0':
 * none yet).
 */
export interface LiveEntry extends LogEntry {
  after: string;
}

/** An input line of the session's inbox with its stream id. */
export interface InputEntry {
  id: string;
  line: string;
}

/** An entry of `follow`: a durable message of the log or an ephemeral one of the live stream. */
export type FollowedEntry = { kind: 'durable'; entry: LogEntry } | { kind: 'live'; entry: LiveEntry };

/** True for the lines a transcript holds that the wire never carries (prompts, hook context, snapshots, titles). */
export function isTranscriptOnly(line: {
  type: string;
  agentpipe_prompt?: unknown;
  agentpipe_context?: unknown;
}): boolean {
  if (line.type === 'agentpipe_snapshot' || line.type === 'custom-title') return true;
  return line.type === 'user' && (line.agentpipe_prompt === true || line.agentpipe_context === true);
}

/** True for log entries a client is never sent: transcript-only lines, the worker's own lines. */
export function isInternal(message: LogMessage): boolean {
  if (message.type === 'agentpipe_session_end' || message.type === 'agentpipe_tool_start') return true;
  return message.type === 'user' || message.type === 'agentpipe_snapshot' || message.type === 'custom-title'
    ? isTranscriptOnly(message)
    : false;
}

const StreamId = z.string().regex(STREAM_ID);

/** A stream entry as Redis answers it: `[id, [field, value, ...]]`. */
const RawEntrySchema = z.tuple([StreamId, z.array(z.unknown())]);

const EndMarkerSchema = z.object({
  type: z.literal('agentpipe_session_end'),
  session_id: z.string(),
  uuid: z.string(),
  reason: z.string(),
  timestamp: z.string(),
});
const ToolStartSchema = z.object({
  type: z.literal('agentpipe_tool_start'),
  session_id: z.string(),
  uuid: z.string(),
  tool_use_id: z.string(),
  tool_name: z.string(),
  parent_tool_use_id: z.string().nullable(),
  worker: z.string(),
  timestamp: z.string(),
});
/** Any other stored message: its envelope. */
const EnvelopeSchema = z.looseObject({ type: z.string(), uuid: z.string().optional() });

/** The worker's own lines, parsed in full. */
const OWN: Record<string, z.ZodType<SessionEndMarker | ToolStartLine>> = {
  agentpipe_session_end: EndMarkerSchema,
  agentpipe_tool_start: ToolStartSchema,
};

/** Parses one stored message (the JSON of a field); throws an Error naming `where` and what is wrong. */
export function parseStoredMessage(json: unknown, where: string): LogMessage {
  if (typeof json !== 'string') throw new Error(`${where}: the entry has no message field`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`${where}: the message is not JSON (${errorMessage(error)})`);
  }
  const envelope = EnvelopeSchema.safeParse(value);
  if (!envelope.success) throw new Error(`${where}: not a message: ${issuesOf(envelope.error)}`);
  const own = OWN[envelope.data.type];
  // A wire message or transcript line by its envelope: a worker wrote it from the typed stream (module comment).
  if (!own) return ownMessage(envelope.data);
  const parsed = own.safeParse(value);
  if (!parsed.success) throw new Error(`${where}: ${issuesOf(parsed.error, envelope.data.type)}`);
  return parsed.data;
}

/** The id and string fields of a stream entry; throws when the reply is not a stream entry. */
export function entryFields(raw: unknown, where: string): { id: string; fields: Map<string, string> } {
  const parsed = RawEntrySchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${where}: unexpected stream entry from Redis (${issuesOf(parsed.error)})`);
  const [id, flat] = parsed.data;
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [name, value] = [flat[i], flat[i + 1]];
    if (typeof name === 'string' && typeof value === 'string') fields.set(name, value);
  }
  return { id, fields };
}

/** A durable entry of the log. */
export function logEntry(raw: unknown, sessionId: string): LogEntry {
  const { id, fields } = entryFields(raw, `session ${sessionId}`);
  const json = fields.get('m');
  const message = parseStoredMessage(json, `session ${sessionId} entry ${id}`);
  const lastLive = fields.get('l');
  const owner = fields.get('o');
  return {
    id,
    message,
    json: json ?? '',
    ...(lastLive !== undefined && STREAM_ID.test(lastLive) ? { lastLive } : {}),
    ...(owner !== undefined ? { owner } : {}),
  };
}

/** An entry of the live stream. */
export function liveEntry(raw: unknown, sessionId: string): LiveEntry {
  const { id, fields } = entryFields(raw, `session ${sessionId} live`);
  const json = fields.get('m');
  const after = fields.get('a');
  return {
    id,
    after: after !== undefined && STREAM_ID.test(after) ? after : '0-0',
    json: json ?? '',
    message: parseStoredMessage(json, `session ${sessionId} live entry ${id}`),
  };
}

/** An entry of the inbox. */
export function inputEntry(raw: unknown, sessionId: string): InputEntry {
  const { id, fields } = entryFields(raw, `session ${sessionId} inbox`);
  const line = fields.get('l');
  if (line === undefined) throw new Error(`session ${sessionId} inbox entry ${id}: no input line`);
  return { id, line };
}

/** An XREAD reply: `[[key, entries], ...]` (RESP2) or, flattened from a RESP3 map, `[key, entries, key, ...]`. */
const XReadSchema = z.union([
  z.array(z.tuple([z.string(), z.array(z.unknown())])),
  z.array(z.union([z.string(), z.array(z.unknown())])),
]);

/** The `[key, entries]` pairs of an XREAD reply. */
export function xreadStreams(reply: unknown, where: string): Array<[string, unknown[]]> {
  const parsed = XReadSchema.safeParse(reply);
  if (!parsed.success) throw new Error(`${where}: unexpected XREAD reply from Redis`);
  const items = parsed.data;
  const pairs: Array<[string, unknown[]]> = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (Array.isArray(item) && typeof item[0] === 'string' && Array.isArray(item[1])) pairs.push([item[0], item[1]]);
    else if (typeof item === 'string' && Array.isArray(items[i + 1])) {
      const entries = items[++i];
      if (Array.isArray(entries)) pairs.push([item, entries]);
    }
  }
  return pairs;
}

/** The entries of one stream in an XREAD reply. */
export function xreadEntries(reply: unknown, where: string): unknown[] {
  return xreadStreams(reply, where)[0]?.[1] ?? [];
}
