/**
 * Parses one line of the CLI's stream-json output (read by the SDK's child-process engine):
 * control lines are validated in full; any other object with a string `type` is a message.
 */
import { errorMessage } from '../process/errors.ts';
import { isRecord } from '../process/guards.ts';
import { z } from 'zod';
import type { ControlCancelRequest, ControlRequest, ControlResponse, KeepAlive, OutboundRequest } from './control.ts';
import {
  ControlCancelRequestSchema,
  ControlResponseSchema,
  KeepAliveSchema,
  OutboundRequestSchema,
} from './control-schema.ts';
import { issuesOf } from './issues.ts';
import type { AgentMessage } from './types.ts';
import { ownMessage } from './wire.ts';

export type OutputLineRead =
  | ControlResponse
  | ControlRequest<OutboundRequest>
  | ControlCancelRequest
  | KeepAlive
  | { type: 'message'; message: AgentMessage };

const OutboundControlRequestSchema = z.object({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: OutboundRequestSchema,
});
const MessageSchema = z.looseObject({
  type: z.string(),
  session_id: z.string().optional(),
  uuid: z.string().optional(),
});

export function parseOutputLine(line: string): { ok: true; line: OutputLineRead } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, error: `malformed JSON (${errorMessage(error)})` };
  }
  return parseOutputValue(value);
}

/** The same check for a value already parsed (a message read back from a cluster session's log). */
export function parseOutputValue(value: unknown): { ok: true; line: OutputLineRead } | { ok: false; error: string } {
  const type = isRecord(value) ? value.type : undefined;
  const schema =
    type === 'control_response'
      ? ControlResponseSchema
      : type === 'control_request'
        ? OutboundControlRequestSchema
        : type === 'control_cancel_request'
          ? ControlCancelRequestSchema
          : type === 'keep_alive'
            ? KeepAliveSchema
            : undefined;
  if (schema) {
    const parsed = schema.safeParse(value);
    return parsed.success
      ? { ok: true, line: parsed.data }
      : { ok: false, error: issuesOf(parsed.error, String(type)) };
  }
  const parsed = MessageSchema.safeParse(value);
  if (!parsed.success) return { ok: false, error: `not a message: ${issuesOf(parsed.error)}` };
  // The CLI's own messages: their type is checked, their fields are passed on as the CLI wrote them.
  return { ok: true, line: { type: 'message', message: ownMessage(parsed.data) } };
}
