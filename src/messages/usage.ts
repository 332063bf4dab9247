/** Constructors for the usage objects and the API message frames of the wire format. */
import type { ApiMessage, AssistantContentBlock, DeltaUsage, StopReason, StreamEvent } from './api.ts';
import type { ApiUsage, ResultUsage } from './types.ts';

/** Usage of one API message from plain token counts. */
export function apiUsage(u: {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}): ApiUsage {
  return {
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
    cache_creation: null,
    inference_geo: null,
    iterations: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
    fallback_credit: null,
  };
}

/** A zeroed prompt-level usage, to be summed into. */
export function emptyResultUsage(): ResultUsage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
    inference_geo: '',
    iterations: [],
    output_tokens_details: { thinking_tokens: 0 },
    speed: 'standard',
    fallback_credit: null,
  };
}

/** An assistant API message: the given fields, and null for every field no provider of ours fills. */
export function apiMessage(m: {
  id: string;
  model: string;
  content: AssistantContentBlock[];
  stop_reason?: StopReason | null;
  stop_sequence?: string | null;
  usage?: ApiUsage;
}): ApiMessage {
  return {
    id: m.id,
    type: 'message',
    role: 'assistant',
    model: m.model,
    content: m.content,
    stop_reason: m.stop_reason ?? null,
    stop_sequence: m.stop_sequence ?? null,
    usage: m.usage ?? apiUsage({}),
    container: null,
    context_management: null,
    diagnostics: null,
    stop_details: null,
  };
}

/** The `message_delta` event that ends a streamed message: its stop reason and cumulative usage. */
export function messageDelta(
  stop: { stop_reason: StopReason | null; stop_sequence?: string | null },
  usage: Pick<DeltaUsage, 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'>,
): Extract<StreamEvent, { type: 'message_delta' }> {
  return {
    type: 'message_delta',
    delta: {
      stop_reason: stop.stop_reason,
      stop_sequence: stop.stop_sequence ?? null,
      container: null,
      stop_details: null,
    },
    usage: { ...usage, server_tool_use: null, iterations: null, output_tokens_details: null, fallback_credit: null },
    context_management: null,
  };
}
