/**
 * The tape's lines checked as they are read (zod; loaded only when a tape is read). The envelope of each line is
 * checked in full; what it carries from elsewhere (stream events, messages, tool results) is checked for its shape
 * (an object with a string `type`), as the CLI's own output lines are read (messages/output-line.ts).
 */
import { z } from 'zod';
import { issuesOf } from '../../messages/issues.ts';
import { PERMISSION_MODES } from '../../messages/permission-modes.ts';
import { TAPE_VERSION, type TapeHeader, type TapeLine } from './format.ts';
import { isRecord } from '../../process/guards.ts';
import { EFFORT_LEVELS } from '../types.ts';

/**
 * The bulk of a tape (a stream's messages, an answer's events: tens of thousands of lines in a long answer) is
 * checked with a predicate each (zod's object schemas cost a replay of 10,000 events ~50 ms).
 */
const Message = z.custom<{ type: string }>(
  (v) =>
    isRecord(v) &&
    typeof v.type === 'string' &&
    (v.uuid === undefined || typeof v.uuid === 'string') &&
    (v.session_id === undefined || typeof v.session_id === 'string'),
  'a message: an object with a "type" (and a string uuid and session_id, if any)',
);
const TimedEvent = z.custom<[number, { type: string }]>(
  (v) =>
    Array.isArray(v) &&
    v.length === 2 &&
    typeof v[0] === 'number' &&
    v[0] >= 0 &&
    isRecord(v[1]) &&
    typeof v[1].type === 'string',
  'an event: [ms, {"type": ...}]',
);
const Content = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);
const Failure = z.object({
  message: z.string(),
  kind: z.string(),
  status: z.number().int().optional(),
  retry_after_ms: z.number().nonnegative().optional(),
});
const Ms = z.number().nonnegative();
const Strings = z.array(z.string());

/** The session options a header keeps (`TapeSession`), each with what it holds where the name does not say it. */
export const TapeSessionSchema = z.looseObject({
  model: z.string(),
  /** The provider that answered (`scripted`, `anthropic`, `openai-compatible`; the harness for wrapped CLIs). */
  provider: z.string(),
  /** What `system/init` reported as the key's source. */
  apiKeySource: z.string(),
  harness: z.string().optional(),
  harnessCommand: z.string().optional(),
  /** A wrapped CLI's API: the path of its base URL (`/v1`), so a replay's CLI asks the same paths. */
  apiBasePath: z.string().optional(),
  systemPrompt: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
  maxTurns: z.number().int().positive().optional(),
  maxBudgetUsd: z.number().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  maxThinkingTokens: z.number().int().positive().optional(),
  allowedTools: Strings.optional(),
  disallowedTools: Strings.optional(),
  tools: Strings.optional(),
  permissionMode: z.enum(PERMISSION_MODES).optional(),
  includePartialMessages: z.boolean().optional(),
  includeHookEvents: z.boolean().optional(),
  /** Settings given as JSON (a path is read and kept as its JSON). */
  settings: z.record(z.string(), z.unknown()).optional(),
  agents: z.record(z.string(), z.unknown()).optional(),
  agent: z.string().optional(),
  /** MCP servers, with the values of secret-looking `env` and `headers` entries replaced by `<redacted>`. */
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  maxContextTokens: z.number().int().positive().optional(),
  outputFormat: z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).optional(),
  fallbackModel: z.string().optional(),
  effort: z.enum(EFFORT_LEVELS).optional(),
  thinking: z.looseObject({ type: z.enum(['adaptive', 'enabled', 'disabled']) }).optional(),
  betas: Strings.optional(),
  additionalDirectories: Strings.optional(),
  settingSources: Strings.optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  /** The session's outcome policy (agent/outcome-policy.ts), when it was not the default. */
  outcomePolicy: z.enum(['claude-code', 'agentpipe']).optional(),
});

const Header = z.object({
  type: z.literal('tape'),
  version: z.literal(TAPE_VERSION),
  agentpipe: z.string(),
  created: z.string(),
  cwd: z.string(),
  realCwd: z.string().optional(),
  places: z.record(z.string(), z.string()).optional(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  platform: z.string(),
  session_id: z.string(),
  session: TapeSessionSchema,
});

const File = z
  .object({
    path: z.string().min(1),
    text: z.string().optional(),
    base64: z.string().optional(),
    link: z.string().optional(),
    mode: z.number().int().nonnegative().optional(),
  })
  .refine((f) => [f.text, f.base64, f.link].filter((v) => v !== undefined).length === 1, {
    message: 'a file has exactly one of text, base64 or link',
  });

const Request = z.object({
  model: z.string(),
  system: z.string(),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string(), input_schema: z.looseObject({}) })),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: Content })),
  max_tokens: z.number().int(),
  thinking: z.looseObject({ type: z.string() }).optional(),
  effort: z.string().optional(),
  betas: Strings.optional(),
});

const Line = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('files'),
    at: z.enum(['start', 'end']),
    files: z.array(File),
    skipped: Strings.optional(),
  }),
  z.object({ type: z.literal('prompt'), uuid: z.string(), content: Content }),
  z.object({ type: z.literal('model_request'), n: z.number().int().nonnegative(), request: Request }),
  z.object({
    type: z.literal('model_response'),
    n: z.number().int().nonnegative(),
    events: z.array(TimedEvent),
    error: Failure.optional(),
    aborted: z.literal(true).optional(),
  }),
  z.object({
    type: z.literal('web_search'),
    request: z.object({
      model: z.string(),
      query: z.string(),
      allowed_domains: Strings.optional(),
      blocked_domains: Strings.optional(),
    }),
    blocks: z.array(z.unknown()).optional(),
    error: Failure.optional(),
  }),
  z.object({
    type: z.literal('tool'),
    tool_use_id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    decision: z.enum(['allow', 'deny']).optional(),
    result: z.looseObject({
      content: z.unknown(),
      is_error: z.boolean().optional(),
      denied: z.string().optional(),
      thrown: z.string().optional(),
    }),
  }),
  z.object({
    type: z.literal('permission'),
    tool_use_id: z.string(),
    name: z.string(),
    answer: z.looseObject({ behavior: z.enum(['allow', 'deny']) }),
  }),
  z.object({
    type: z.literal('hook'),
    event: z.string(),
    tool_use_id: z.string().optional(),
    match: z.string().optional(),
    verdict: z.object({
      ran: z.boolean(),
      block: z.string().optional(),
      blockedBy: z.string().optional(),
      permission: z.enum(['allow', 'deny', 'ask']).optional(),
      permissionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      stop: z.string().optional(),
      additionalContext: z.array(z.string()),
      updatedToolOutput: z.unknown().optional(),
    }),
    messages: z.array(Message),
  }),
  z.object({
    type: z.literal('http'),
    n: z.number().int().nonnegative(),
    api: z.enum(['anthropic', 'openai-responses', 'openai-chat', 'gemini', 'other']),
    method: z.string(),
    path: z.string(),
    request: z.unknown(),
    status: z.number().int(),
    content_type: z.string().optional(),
    chunks: z.array(z.tuple([Ms, z.string()])),
    encoding: z.literal('base64').optional(),
    error: z.string().optional(),
  }),
  z.object({ type: z.literal('message'), message: Message }),
]);

/** The header, or a clear error. */
export function parseHeader(value: unknown): TapeHeader {
  const type = isRecord(value) ? value.type : undefined;
  if (type !== 'tape') throw new TypeError('the first line is not a tape header ({"type":"tape","version":1,...})');
  const version = isRecord(value) ? value.version : undefined;
  if (version !== TAPE_VERSION)
    throw new TypeError(`tape version ${JSON.stringify(version)}: this agentpipe reads version ${TAPE_VERSION}`);
  const parsed = Header.safeParse(value);
  if (!parsed.success) throw new TypeError(issuesOf(parsed.error));
  return value as TapeHeader;
}

/** One line after the header, or a clear error; `undefined` for a line type of a newer agentpipe (skipped). */
export function parseLine(value: unknown): TapeLine | undefined {
  const type = isRecord(value) ? value.type : undefined;
  if (typeof type !== 'string') throw new TypeError('not an object with a string "type"');
  const parsed = Line.safeParse(value);
  // The value itself, checked (the schema transforms nothing; its output would put the declared keys first).
  if (parsed.success) return value as TapeLine;
  const known = Line.options.some((option) => option.shape.type.value === type);
  if (!known) return undefined;
  throw new TypeError(issuesOf(parsed.error, type));
}
