/**
 * The model-facing half of the wire contract, in the shapes of the Anthropic Messages API:
 * content blocks, API messages and usage, and the raw streaming events every provider speaks.
 */

/** Text content block of an API message. */
export interface TextBlock {
  type: 'text';
  text: string;
  citations?: null;
}
/**
 * Text block of a model answer: `citations: null` as the API sends it; without it in the `assistant` messages of a
 * streamed answer, as Claude Code sends them.
 */
export interface AssistantTextBlock {
  type: 'text';
  text: string;
  citations?: null;
}
/** Extended-thinking content block; `signature` is empty for models that do not sign. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}
/** A tool call requested by the model. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
/** Image formats the model APIs accept. */
export type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
/** Base64 image source. */
export interface ImageSource {
  type: 'base64';
  media_type: ImageMediaType;
  data: string;
}
/** Image content block (tool results, user input). */
export interface ImageBlock {
  type: 'image';
  source: ImageSource;
}
/** The result of one tool call, sent back to the model. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<TextBlock | ImageBlock>;
  is_error?: boolean;
}
/** A block the model may produce. */
export type AssistantContentBlock = AssistantTextBlock | ThinkingBlock | ToolUseBlock;
/** A block a user (or tool result) message may carry. */
export type UserContentBlock = TextBlock | ImageBlock | ToolResultBlock;

/**
 * Token usage of one API message (Anthropic `BetaUsage` shape). The members after the token counts are left out
 * where the API sent none (the `assistant` messages of a streamed answer carry `message_start`'s usage as the API
 * sent it, as Claude Code's do).
 */
export interface ApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number } | null;
  inference_geo?: string | null;
  iterations?: null;
  output_tokens_details?: null;
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number } | null;
  service_tier?: 'standard' | 'priority' | 'batch' | null;
  speed?: 'standard' | 'fast' | null;
  fallback_credit?: null;
}

/** Why the model stopped. */
export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

/** A complete assistant API message (Anthropic `BetaMessage` shape). */
export interface ApiMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AssistantContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: ApiUsage;
  /**
   * The API's null members: left out of the `assistant` messages of a streamed answer, as Claude Code does (and out of
   * a `message_start` the API sent without them).
   */
  container?: null;
  context_management?: null;
  diagnostics?: null;
  stop_details?: null;
}

/** A message as sent to a model (Anthropic `MessageParam` shape); the session history is a list of these. */
export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | Array<AssistantContentBlock | UserContentBlock>;
}

/**
 * Raw streaming events (Anthropic `BetaRawMessageStreamEvent`); every provider speaks them. A provider's own events
 * have every member, null where it has nothing; a `stream_event` message passes the Anthropic API's events as the API
 * sent them (`src/model/wire-event.ts`), so the members that may be null may also be absent there.
 */
export type StreamEvent =
  | { type: 'message_start'; message: ApiMessage }
  | { type: 'content_block_start'; index: number; content_block: AssistantContentBlock }
  | { type: 'content_block_delta'; index: number; delta: ContentDelta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta';
      delta: { stop_reason: StopReason | null; stop_sequence: string | null; container?: null; stop_details?: null };
      usage: DeltaUsage;
      context_management?: null;
    }
  | { type: 'message_stop' };

/** A delta inside a content block. */
export type ContentDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string; estimated_tokens?: number | null }
  | { type: 'signature_delta'; signature: string }
  | { type: 'input_json_delta'; partial_json: string };

/** Cumulative usage carried by `message_delta`. */
export interface DeltaUsage {
  input_tokens?: number | null;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number } | null;
  iterations?: [] | null;
  output_tokens_details?: { thinking_tokens: number } | null;
  fallback_credit?: null;
}
