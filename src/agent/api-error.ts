/**
 * A model request that failed for good ends the prompt as Claude Code 2.1.197 ends it: a synthetic
 * assistant message (model `<synthetic>`) whose text is Claude Code's own wording of the error,
 * then a `success` result with `is_error: true`, that text as `result` and the HTTP status as
 * `api_error_status`. The wording follows Claude Code's error-to-message table (read from its
 * binary) for what a headless run with an API key meets: 429, an invalid key, 401/403, an unknown
 * model (404), a request too large (413), a prompt too long, 5xx/529, a connection that failed, and
 * any other status. Its subscription (claude.ai) and cloud-provider branches have no counterpart here.
 */
import { errorCode, errorMessage } from '../process/errors.ts';
import { newUuid } from '../messages/ids.ts';
import { apiMessage } from '../messages/usage.ts';
import type { AssistantMessage, MessageParam, TerminalReason } from '../messages/types.ts';
import { ModelError } from '../model/errors.ts';

/** What the prompt's result says about a failed request. */
export interface ResultApiError {
  /** Claude Code's text: the synthetic message's text and the result's `result`. */
  text: string;
  /** `result.api_error_status`: the HTTP status, null without a response. */
  status: number | null;
  /** `result.api_error_type`: the API's error type (`api_error`, `overloaded_error` …), when it named one. */
  type?: string;
  /** `result.terminal_reason` (Claude Code 2.1.332: `api_error`, except a prompt or request too large). */
  terminalReason: TerminalReason;
}

/** A failed request as the synthetic assistant message and the result tell it. */
export interface ApiErrorReport extends ResultApiError {
  /** `assistant.error`. */
  error: NonNullable<AssistantMessage['error']>;
}

/** What the wording depends on besides the error. */
export interface ApiErrorScene {
  /** The model the request asked for. */
  model: string;
  /** `ModelProvider.provider` (the status page and gateway hints are Anthropic's). */
  provider: string;
  apiKeySource: string;
  /** The conversation sent (Claude Code names its size when a single exchange is too long). */
  history: MessageParam[];
  env?: Record<string, string | undefined>;
}

type Env = Record<string, string | undefined>;

/** "API error 500 (api_error): boom" (Anthropic), "API error 404 model not found" (OpenAI-compatible). */
const PROVIDER_MESSAGE = /^API error(?: (\d{3}))?(?: \(([^)]*)\))?(?: in stream)?:? ([\s\S]*)$/;

/** Claude Code's words for a request that failed with `error` (a ModelError, or anything thrown). */
export function describeApiError(error: unknown, scene: ApiErrorScene): ApiErrorReport {
  const env = scene.env ?? process.env;
  const modelError = ModelError.isInstance(error) ? error : undefined;
  const raw = errorMessage(error);
  const parsed = PROVIDER_MESSAGE.exec(raw);
  const status = modelError?.status ?? (parsed?.[1] ? Number(parsed[1]) : undefined);
  // The text after the status (a provider's message may start with the status itself).
  const text = parsed ? parsed[3]!.trim() : raw;
  const detail = status !== undefined && text.startsWith(`${status} `) ? text.slice(`${status} `.length) : text;
  const report: Report = (text, kind, terminalReason = 'api_error') => ({
    text,
    error: kind,
    status: status ?? null,
    ...(parsed?.[2] ? { type: parsed[2] } : {}),
    terminalReason,
  });
  // An answer began and went wrong: named, not taken for a connection that never came.
  if (modelError?.fault === 'html')
    return report(`API Error: ${raw}. Check the base URL (${baseUrlSetting(scene)}): ${NOT_THE_API}`, 'server_error');
  if (modelError?.fault === 'cut')
    return report(`API Error: ${raw}; the answer is incomplete. ${TRY_AGAIN}`, 'server_error');
  // The request never got an answer.
  if (status === undefined && modelError?.kind === 'connection') {
    const [text, kind] = connectionFailure(modelError, raw);
    // Claude Code's words, then where the request went: the host and port, and the setting that names them.
    return report(
      modelError.endpoint ? `${text} · the API at ${modelError.endpoint} (${baseUrlSetting(scene)})` : text,
      kind,
    );
  }
  // No key at all (agentpipe's own check; Claude Code says "Not logged in · Please run /login",
  // a command agentpipe does not have): agentpipe's words, which say what to set.
  if (status === undefined && modelError?.kind === 'authentication_failed') return report(raw, 'authentication_failed');
  return describeAnswer({ status, detail, scene, env }, report);
}

/** Builds the report of one wording: its text, `assistant.error` and `terminal_reason`. */
type Report = (text: string, kind: ApiErrorReport['error'], terminalReason?: TerminalReason) => ApiErrorReport;

/** Claude Code's words for an error the API answered (or a message that names one): by status, then by text. */
function describeAnswer(
  { status, detail, scene, env }: { status: number | undefined; detail: string; scene: ApiErrorScene; env: Env },
  report: Report,
): ApiErrorReport {
  const lower = detail.toLowerCase();
  const withStatus = status !== undefined ? `${status} ${detail}` : detail;
  if (status === 429)
    return report(
      `API Error: Request rejected (429) · ` +
        `${detail || `this may be a temporary capacity issue.${statusHint(scene, env)}`}`,
      'rate_limit',
    );
  if (lower.includes('prompt is too long') || lower.includes('input length and `max_tokens` exceed context limit'))
    return report(promptTooLong(detail, scene), 'invalid_request', 'prompt_too_long');
  if (status === 413) {
    if (lower.includes('context window'))
      return report(promptTooLong(detail, scene), 'invalid_request', 'prompt_too_long');
    return report(
      'Request too large (max 32MB). Accumulated images and attachments in the conversation pushed the request over ' +
        'the limit. Remove older images or compact the conversation.',
      'invalid_request',
      'image_error',
    );
  }
  if (status === 400 && lower.includes('image exceeds') && lower.includes('maximum'))
    return report('Image was too large. Try resizing the image or using a different approach.', 'invalid_request');
  if (lower.includes('credit balance is too low')) return report('Credit balance is too low', 'billing_error');
  if (lower.includes('x-api-key'))
    return report(
      scene.apiKeySource === 'ANTHROPIC_API_KEY' || scene.apiKeySource === 'apiKeyHelper'
        ? 'Invalid API key · Fix external API key'
        : 'Not logged in · Please run /login',
      'authentication_failed',
    );
  if (status === 401 || status === 403)
    return report(`Failed to authenticate. API Error: ${withStatus}`, 'authentication_failed');
  if (status === 404) {
    // `claude -p` (entry point sdk-cli) adds how to pick another model; through the SDK (sdk-ts) it does not.
    const cli = (env.CLAUDE_CODE_ENTRYPOINT ?? 'sdk-cli') === 'sdk-cli';
    return report(
      `There's an issue with the selected model (${scene.model}). It may not exist or you may not have access ` +
        `to it.${cli ? ' Run --model to pick a different model.' : ''}`,
      'model_not_found',
    );
  }
  if (status !== undefined && status >= 500)
    return report(
      `API Error: ${withStatus.replace(/[.!?…]+$/, '')}. This is a server-side issue, usually temporary — try ` +
        `again in a moment.${statusHint(scene, env)}`,
      'server_error',
    );
  return report(`API Error: ${withStatus}`, 'unknown');
}

/** The synthetic assistant message Claude Code emits for a failed request. */
export function apiErrorAssistant(
  report: ApiErrorReport,
  ids: { sessionId: string; parentToolUseId: string | null },
): AssistantMessage {
  return {
    type: 'assistant',
    // Claude Code's synthetic message: its usage has the zeroed objects, not nulls.
    message: apiMessage({
      id: newUuid(),
      model: '<synthetic>',
      content: [{ type: 'text', text: report.text }],
      stop_reason: 'stop_sequence',
      stop_sequence: '',
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
        inference_geo: null,
        iterations: null,
        output_tokens_details: null,
        server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
        service_tier: null,
        speed: null,
        fallback_credit: null,
      },
    }),
    parent_tool_use_id: ids.parentToolUseId,
    session_id: ids.sessionId,
    uuid: newUuid(),
    timestamp: new Date().toISOString(),
    error: report.error,
    // Claude Code 2.1.332 marks the message and repeats what the API said (when it answered).
    ...(report.status !== null ? { api_error_status: report.status } : {}),
    ...(report.type ? { api_error_type: report.type } : {}),
    is_api_error_message: true,
  };
}

const NOT_THE_API = 'a proxy, a login page or another web server answered instead of the API.';
const TRY_AGAIN = 'This is usually temporary — try again.';

/**
 * A request that got no answer, in Claude Code 2.1.332's words: no answer in time (API_TIMEOUT_MS, as Claude Code's
 * request timeout), a refused, lost or unresolved connection; a stream that went quiet midway in agentpipe's words.
 */
function connectionFailure(error: ModelError, raw: string): [string, ApiErrorReport['error']] {
  if (raw.includes('no response within') || /timed? ?out\b/i.test(raw)) return ['Request timed out', 'server_error'];
  if (raw.includes('stream stalled')) return [`API Error: ${raw}`, 'unknown'];
  const code = connectionCode(error);
  if (code === 'ECONNREFUSED')
    return ['API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)', 'server_error'];
  if (code === 'ECONNRESET' || code === 'EPIPE')
    return [`API Error: Connection to the API was lost (${code}). ${TRY_AGAIN}`, 'server_error'];
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return [`API Error: Can't reach the API server — check your internet or DNS (${code})`, 'server_error'];
  const unable = code
    ? `Unable to connect to API (${code})`
    : 'Unable to connect to API. Check your internet connection';
  return [`API Error: ${unable}`, 'server_error'];
}

/** Where the provider's base URL is set. */
function baseUrlSetting(scene: ApiErrorScene): string {
  return scene.provider === 'anthropic' ? 'ANTHROPIC_BASE_URL' : '--base-url, OPENAI_BASE_URL';
}

/** Where to look when a server error persists: Anthropic's status page, or the gateway the base URL names. */
function statusHint(scene: ApiErrorScene, env: Env): string {
  if (scene.provider !== 'anthropic') return '';
  const base = env.ANTHROPIC_BASE_URL ?? '';
  let host: string | undefined;
  try {
    host = base ? new URL(base).host : undefined;
  } catch {
    host = undefined;
  }
  if (!base || host === 'api.anthropic.com') return ' If it persists, check https://status.claude.com.';
  return ` If it persists, check your inference gateway (${host || base}).`;
}

/**
 * A prompt too long for the model. Claude Code compacts a longer conversation and tries again;
 * agentpipe does not, so it ends here as Claude Code ends when compaction cannot help: for a single
 * exchange, with the sizes (the conversation's own size is agentpipe's estimate).
 */
function promptTooLong(detail: string, scene: ApiErrorScene): string {
  if (scene.history.some((m) => m.role === 'assistant')) return 'Prompt is too long';
  // Four characters a token, as agentpipe's compaction estimates.
  const conversationTokens = Math.ceil(JSON.stringify(scene.history).length / 4);
  const match = /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/i.exec(detail);
  if (!match)
    return (
      'Prompt is too long · this conversation is a single exchange and cannot be compacted — the request size ' +
      'comes mostly from system prompt, tool definitions, or attachments.'
    );
  const [actual, limit] = [Number(match[1]), Number(match[2])];
  if (conversationTokens >= actual * 0.8)
    return (
      `Prompt is too long · the request is ~${actual} tokens (limit ${limit}) and this conversation's own ` +
      `content is most of it. A single-exchange conversation cannot be compacted; start with less content ` +
      `(smaller files or pasted text).`
    );
  return (
    `Prompt is too long · the request is ~${actual} tokens (limit ${limit}) but this conversation is only ` +
    `~${conversationTokens} tokens — the rest is system prompt, tool definitions, and attachment content. A ` +
    `single-exchange conversation cannot be compacted; reduce attached files/tools or start with less context.`
  );
}

/** The system error code (ECONNREFUSED, ...) in an error's cause chain. */
function connectionCode(error: Error): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = errorCode(current);
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  const match = /\b(E[A-Z]{3,})\b/.exec(error.message);
  return match?.[1];
}
