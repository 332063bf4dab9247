/** Constructors for the usage objects of the wire format. */
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
