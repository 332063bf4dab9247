/**
 * Parses one line of stream-json input into an `InputMessage`, or says clearly why not.
 * Unknown `type`s are reported, not fatal (new clients must not break old agents). One zod
 * schema per line type; zod loads with this module, so readers import it lazily.
 */
import { z } from 'zod';
import type { InputMessage, InputUserMessage } from './control.ts';
import { ControlCancelRequestSchema, ControlResponseSchema, KeepAliveSchema } from './control-schema.ts';
import { issuesOf } from './issues.ts';
import { ImageBlockSchema, TextBlockSchema, ToolResultBlockSchema } from './content-schema.ts';

/** A parsed line, or the reason it was rejected. */
export type ParsedLine = { ok: true; message: InputMessage } | { ok: false; error: string };

const UserContentBlockSchema = z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema, ToolResultBlockSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a content block must be text, image or tool_result' : undefined),
});

export const InputUserMessageSchema = z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user').default('user'),
    content: z.union([z.string(), z.array(UserContentBlockSchema)], { error: 'user message content must be a string or an array of blocks' }),
  }),
  parent_tool_use_id: z.string().nullable().optional(),
  session_id: z.string().optional(),
  uuid: z.string().optional(),
  priority: z.enum(['now', 'next', 'later']).optional(),
}) satisfies z.ZodType<InputUserMessage>;

/** A control request from the client; each subtype's fields are checked by its handler. */
export const InputControlRequestSchema = z.object({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.looseObject({ subtype: z.string() }),
});

const BY_TYPE = {
  user: InputUserMessageSchema,
  control_request: InputControlRequestSchema,
  control_response: ControlResponseSchema,
  control_cancel_request: ControlCancelRequestSchema,
  keep_alive: KeepAliveSchema,
} as const;

export function parseInputLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, error: `malformed JSON (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'expected a JSON object' };
  const type = (value as { type?: unknown }).type;
  const schema = typeof type === 'string' && Object.hasOwn(BY_TYPE, type) ? BY_TYPE[type as keyof typeof BY_TYPE] : undefined;
  if (!schema) return { ok: false, error: `unknown message type ${JSON.stringify(type)}` };
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, error: issuesOf(parsed.error, String(type)) };
  return { ok: true, message: parsed.data };
}
