/**
 * The schema of one transcript line, checked when a transcript is read back (resume, list, ACP
 * load): the fields the readers rely on are validated; the other fields of the wire messages are
 * kept as they are (old files stay readable). Loaded lazily (zod) by transcript-format.ts.
 */
import { z } from 'zod';
import { issuesOf } from '../messages/issues.ts';
import { ContentBlockSchema, MessageContentSchema, MessageParamSchema } from '../messages/content-schema.ts';
import type { AgentMessage } from '../messages/types.ts';

const Envelope = {
  session_id: z.string().optional(),
  uuid: z.string().optional(),
  timestamp: z.string().optional(),
  parent_tool_use_id: z.string().nullable().optional(),
};

const SnapshotLine = z.looseObject({
  type: z.literal('agentpipe_snapshot'),
  reason: z.enum(['compact', 'fork', 'resume_at', 'store']),
  history: z.array(MessageParamSchema),
  seen_uuids: z.array(z.string()).optional(),
  from: z.object({ session_id: z.string(), uuid: z.string().optional() }).optional(),
  ...Envelope,
});
const UserLine = z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({ role: z.literal('user').optional(), content: MessageContentSchema }),
  isReplay: z.boolean().optional(),
  agentpipe_prompt: z.boolean().optional(),
  agentpipe_context: z.boolean().optional(),
  agentpipe_command: z.literal('compact').optional(),
  ...Envelope,
});
const AssistantLine = z.looseObject({
  type: z.literal('assistant'),
  message: z.looseObject({ id: z.string(), content: z.array(ContentBlockSchema) }),
  error: z.string().optional(),
  ...Envelope,
});
/** A model's totals in a result (`modelUsage`): the counts a resumed session goes on from. */
const ModelUsageLine = z.looseObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
});
const ResultLine = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  total_cost_usd: z.number().optional(),
  modelUsage: z.record(z.string(), ModelUsageLine).optional().catch(undefined),
  ...Envelope,
});
/** The title the client gave the session (`rename_session`), Claude Code's `custom-title` line. */
const TitleLine = z.looseObject({ type: z.literal('custom-title'), customTitle: z.string(), ...Envelope });
const SystemLine = z.looseObject({
  type: z.literal('system'),
  subtype: z.string(),
  cwd: z.string().optional(),
  /** A compaction's token counts (`compact_boundary`): the result of a `/compact` cut off after it (a takeover). */
  compact_metadata: z
    .looseObject({ pre_tokens: z.number(), post_tokens: z.number().optional() })
    .optional()
    .catch(undefined),
  ...Envelope,
});
/** The other wire messages (a new message type must be added here: tsc checks the list is complete). */
const OTHER_TYPES = ['auth_status', 'stream_event', 'tool_progress'] as const satisfies ReadonlyArray<
  AgentMessage['type']
>;
type Missing = Exclude<AgentMessage['type'], (typeof OTHER_TYPES)[number] | 'user' | 'assistant' | 'result' | 'system'>;
const _everyTypeHandled: [Missing] extends [never] ? true : Missing = true;
/** Other wire messages; their fields are not read back. */
const OtherLine = z.looseObject({ type: z.enum(OTHER_TYPES), ...Envelope });

/** Types agentpipe knows; a line of another type (written by a newer version) is skipped. */
export const KNOWN_TYPES: ReadonlySet<unknown> = new Set([
  'agentpipe_snapshot',
  'custom-title',
  'user',
  'assistant',
  'result',
  'system',
  ...OTHER_TYPES,
]);

export const TranscriptLineSchema = z.discriminatedUnion('type', [
  SnapshotLine,
  TitleLine,
  UserLine,
  AssistantLine,
  ResultLine,
  SystemLine,
  OtherLine,
]);

/** One line of a transcript, as read back. */
export type TranscriptLine = z.infer<typeof TranscriptLineSchema>;

/** Parses one line: the line, or why it is not a transcript line. */
export function parseTranscriptLine(value: unknown): { ok: true; line: TranscriptLine } | { ok: false; error: string } {
  const parsed = TranscriptLineSchema.safeParse(value);
  return parsed.success ? { ok: true, line: parsed.data } : { ok: false, error: issuesOf(parsed.error) };
}
