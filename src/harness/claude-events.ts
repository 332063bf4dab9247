/**
 * The lines a wrapped Claude Code (or Qwen Code, which speaks the same stream-json) writes that the translator reads
 * field by field, declared once and parsed where they enter (claude.ts `#handle`): the prompt's `result`, a
 * `can_use_tool` control request, `system/init`. Each field is read leniently, as the translator always did: a field
 * of an unexpected type reads as absent (a newer CLI must not lose the prompt's result over one field). Messages the
 * translator passes on whole (assistant, user, stream_event, ...) keep the CLI's fields; only their type is checked.
 */
import { z } from 'zod';
import type { ResultErrorSubtype, TerminalReason } from '../messages/types.ts';
import {
  lenient,
  lenientEntries,
  lenientFlag,
  lenientNumber,
  lenientRecord,
  lenientStrings,
  lenientText,
} from './lenient.ts';

const num = lenientNumber;
const text = lenientText;

const TERMINAL_REASONS = [
  'completed',
  'max_turns',
  'aborted_streaming',
  'aborted_tools',
  'budget_exhausted',
  'model_error',
  'api_error',
  'hook_stopped',
  'prompt_too_long',
  'image_error',
] as const satisfies readonly TerminalReason[];

const ERROR_SUBTYPES = [
  'error_during_execution',
  'error_max_turns',
  'error_max_budget_usd',
  'error_max_structured_output_retries',
] as const satisfies readonly ResultErrorSubtype[];

/** Token counts per model, as Claude Code's `modelUsage` reports them (camelCase, with the cost). */
const ModelUsageSchema = z.looseObject({
  inputTokens: num,
  outputTokens: num,
  cacheReadInputTokens: num,
  cacheCreationInputTokens: num,
  costUSD: num,
});

/** The API's usage block (Qwen Code reports only this one). */
const UsageSchema = z.looseObject({
  input_tokens: num,
  output_tokens: num,
  cache_read_input_tokens: num,
  cache_creation_input_tokens: num,
});

/** The prompt's `result`. A `terminal_reason` agentpipe does not know reads as absent, never as a TerminalReason. */
export const ClaudeResultSchema = z.looseObject({
  type: z.literal('result'),
  subtype: z.string().catch('unknown'),
  is_error: lenientFlag,
  result: text,
  num_turns: num,
  duration_api_ms: num,
  total_cost_usd: num,
  stop_reason: text,
  terminal_reason: lenient(z.enum(TERMINAL_REASONS)),
  api_error_status: num,
  ttft_ms: num,
  ttft_stream_ms: num,
  time_to_request_ms: num,
  errors: lenientStrings.transform((errors) => errors ?? []),
  /** Qwen Code: `error: {message}`. */
  error: lenient(z.looseObject({ message: z.string() })),
  modelUsage: lenientEntries(ModelUsageSchema),
  usage: lenient(UsageSchema),
});
export type ClaudeResult = z.infer<typeof ClaudeResultSchema>;

/** The result subtype as agentpipe's union has it: an unknown one is an error during execution. */
export function errorSubtypeOf(subtype: string): ResultErrorSubtype {
  return ERROR_SUBTYPES.find((s) => s === subtype) ?? 'error_during_execution';
}

/** A control request of the CLI: `can_use_tool` is served, anything else is refused by its subtype. */
export const ClaudeControlRequestSchema = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.unknown(),
  request: z
    .looseObject({
      subtype: z.unknown(),
      tool_name: text,
      input: lenientRecord,
      tool_use_id: text,
      permission_suggestions: lenient(z.array(z.unknown())),
      display_name: text,
      description: text,
      decision_reason: text,
      decision_reason_type: text,
      blocked_path: text,
    })
    .catch(() => ({ subtype: undefined })),
});
export type ClaudeControlRequest = z.infer<typeof ClaudeControlRequestSchema>;

/** `system/init`: what the CLI says about itself (its own session id is kept to resume it). */
export const ClaudeInitSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  session_id: text,
  model: text,
  cwd: text,
  tools: lenientStrings,
});
