/**
 * zod schemas of the control protocol's lines (control.ts), for lines read from another
 * process: a client's stream-json input, or the CLI's output read by the SDK's child-process
 * engine. zod loads lazily: import this module with `import()` from the readers.
 */
import { z } from 'zod';
import type { ControlCancelRequest, ControlResponse, KeepAlive, OutboundRequest, PermissionResult } from './control.ts';
import { issuesOf } from './issues.ts';

const Record = z.record(z.string(), z.unknown());

export const ControlResponseSchema = z.object({
  type: z.literal('control_response'),
  response: z.discriminatedUnion('subtype', [
    z.object({ subtype: z.literal('success'), request_id: z.string(), response: Record.optional() }),
    z.object({ subtype: z.literal('error'), request_id: z.string(), error: z.string() }),
  ]),
}) satisfies z.ZodType<ControlResponse>;

export const ControlCancelRequestSchema = z.object({
  type: z.literal('control_cancel_request'),
  request_id: z.string(),
}) satisfies z.ZodType<ControlCancelRequest>;

export const KeepAliveSchema = z.object({ type: z.literal('keep_alive') }) satisfies z.ZodType<KeepAlive>;

/** Requests the CLI sends to its client (answered by the SDK). */
export const OutboundRequestSchema = z.discriminatedUnion('subtype', [
  z.object({
    subtype: z.literal('can_use_tool'),
    tool_name: z.string(),
    input: Record,
    tool_use_id: z.string(),
    permission_suggestions: z.array(z.unknown()).default([]),
    agent_id: z.string().optional(),
  }),
  z.object({
    subtype: z.literal('hook_callback'),
    callback_id: z.string(),
    input: Record,
    tool_use_id: z.string().optional(),
  }),
  z.object({ subtype: z.literal('mcp_message'), server_name: z.string(), message: Record }),
]) satisfies z.ZodType<OutboundRequest>;

/** A client's answer to `can_use_tool` (the official SDK's `PermissionResult`). */
const Classification = z.enum(['user_temporary', 'user_permanent', 'user_reject']).optional().catch(undefined);
export const PermissionResultSchema = z.discriminatedUnion('behavior', [
  z.object({
    behavior: z.literal('allow'),
    updatedInput: Record.optional(),
    toolUseID: z.string().optional(),
    decisionClassification: Classification,
  }),
  z.object({
    behavior: z.literal('deny'),
    message: z.string(),
    interrupt: z.boolean().optional(),
    toolUseID: z.string().optional(),
    decisionClassification: Classification,
  }),
]) satisfies z.ZodType<PermissionResult>;

/** The answer checked; throws an Error that says what is wrong with it. */
export function parsePermissionResult(value: unknown): PermissionResult {
  const parsed = PermissionResultSchema.safeParse(value);
  if (!parsed.success) throw new Error(`invalid can_use_tool answer: ${issuesOf(parsed.error)}`);
  return parsed.data;
}
