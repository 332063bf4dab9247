/**
 * A provider for any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM,
 * llama.cpp, LM Studio, OpenRouter…): the request the official `openai` package sends, streamed
 * over node's HTTP client (`http-stream.ts`). Our Anthropic-shaped history is converted to chat
 * messages, and the streamed chunks are translated into Anthropic-style `StreamEvent`s.
 */
import type OpenAI from 'openai';
import type {
  AssistantContentBlock,
  MessageParam,
  StopReason,
  StreamEvent,
  TextBlock,
  ImageBlock,
} from '../messages/types.ts';
import { newUuid } from '../messages/ids.ts';
import { apiMessage, messageDelta } from '../messages/usage.ts';
import { errorBody, toModelError, type ApiErrorMapper } from './api-errors.ts';
import { ModelError } from './errors.ts';
import { endpoint, HttpProvider, postForEvents, translatedBatches } from './http-stream.ts';
import { TextChunkTemplate } from './text-chunk-template.ts';
import { thinkingOf, type ModelProvider, type ModelRequest } from './types.ts';
import { isRecord } from '../process/guards.ts';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type ContentPart = OpenAI.Chat.ChatCompletionContentPart;

/** Options of `OpenAICompatibleProvider`. */
export interface OpenAICompatibleProviderOptions {
  /** Endpoint base, e.g. http://localhost:11434/v1 (default: `OPENAI_BASE_URL`, else api.openai.com). */
  baseUrl?: string;
  /** Bearer key; 'not-needed' is sent when absent (local servers). */
  apiKey?: string;
  apiKeySource: ModelProvider['apiKeySource'];
  defaultHeaders?: Record<string, string>;
}

/** Streams any OpenAI-compatible chat-completions model as Anthropic-style events. */
export class OpenAICompatibleProvider extends HttpProvider implements ModelProvider {
  readonly provider = 'openai-compatible';

  constructor(options: OpenAICompatibleProviderOptions) {
    // The environment's OpenAI account headers (organization, project) are not sent to arbitrary compatible servers.
    super(
      options.apiKeySource,
      endpoint({
        base: options.baseUrl || process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
        path: '/chat/completions',
        apiKey: options.apiKey ?? '',
        headers: { authorization: `Bearer ${options.apiKey || 'not-needed'}` },
        defaultHeaders: options.defaultHeaders,
      }),
    );
  }

  /** The events of each network read together; a bad chunk still lets out the events before it. */
  async *streamBatches(request: ModelRequest): AsyncGenerator<StreamEvent[]> {
    const signal = request.abortSignal;
    signal.throwIfAborted();
    try {
      const body: OpenAI.Chat.ChatCompletionCreateParamsStreaming = {
        model: request.model,
        messages: toChatMessages(request.system, request.messages),
        stream: true,
        stream_options: { include_usage: true },
      };
      // OpenAI's reasoning models reject max_tokens; most compatible servers only know max_tokens.
      if (/^(o\d|gpt-5)/.test(request.model)) body.max_completion_tokens = request.maxTokens;
      else body.max_tokens = request.maxTokens;
      if (request.tools.length > 0) {
        body.tools = request.tools.map((tool) => ({
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
        }));
      }
      const thinking = thinkingOf(request);
      if (request.effort) body.reasoning_effort = request.effort;
      else if (thinking?.type === 'enabled' && thinking.budgetTokens !== undefined) {
        const budget = thinking.budgetTokens;
        body.reasoning_effort = budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
      }
      const translator = new ChunkTranslator(request.model);
      const template = new TextChunkTemplate();
      const reads = postForEvents({ url: this.endpoint.url, headers: this.endpoint.headers, body, signal });
      yield* translatedBatches<StreamEvent>(reads, ({ data }, out) => {
        if (data === '[DONE]') return true;
        const text = template.text(data);
        if (text !== undefined) translator.text(text, out);
        else {
          const chunk = chunkOf(data);
          template.learn(data, chunk);
          translator.translate(chunk, out);
        }
        return false;
      });
      if (!translator.finished) {
        throw new ModelError({ kind: 'connection', fault: 'cut', message: 'the stream ended before finish_reason' });
      }
      const last: StreamEvent[] = [];
      translator.finish(last);
      yield last;
    } catch (error) {
      throw toModelError(error, signal, this.endpoint.apiKey, fromApiError);
    }
  }
}

/** One chunk's data: a chat-completion chunk, or an `error` object the server sent inside the stream. */
function chunkOf(data: string): OpenAI.Chat.ChatCompletionChunk {
  const value: unknown = JSON.parse(data);
  const record = isRecord(value) ? value : undefined;
  if (!record) {
    throw new ModelError({ kind: 'server_error', message: `Malformed stream chunk: ${data.slice(0, 200)}` });
  }
  if (isRecord(record.error)) {
    const error = record.error;
    const code = [error.code, error.type].filter((part) => typeof part === 'string').join(' ');
    const kind = /rate_limit/.test(code) ? 'rate_limit' : /overload/.test(code) ? 'overloaded' : 'server_error';
    const message = typeof error.message === 'string' ? error.message : 'the stream reported an error';
    throw new ModelError({ kind, message: `API error in stream: ${message}` });
  }
  return value as OpenAI.Chat.ChatCompletionChunk;
}

/** Our Anthropic-shaped history → chat messages. */
export function toChatMessages(system: string, messages: MessageParam[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  for (const message of messages) {
    if (typeof message.content === 'string') {
      out.push({ role: message.role, content: message.content });
    } else if (message.role === 'assistant') {
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const toolCalls = message.content.flatMap((b) =>
        b.type === 'tool_use'
          ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input) } }]
          : [],
      );
      // Thinking blocks stay out: compatible servers do not take reasoning back.
      const assistant: OpenAI.Chat.ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: text === '' && toolCalls.length > 0 ? null : text,
      };
      if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
      out.push(assistant);
    } else {
      // Tool results first (they must directly follow the assistant's tool_calls), then one
      // user message with the text and images, including images the tools returned.
      const parts: ContentPart[] = [];
      for (const block of message.content) {
        if (block.type === 'tool_result') {
          const content =
            typeof block.content === 'string'
              ? block.content
              : block.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
          out.push({
            role: 'tool',
            tool_call_id: block.tool_use_id,
            content: block.is_error ? `Error: ${content}` : content,
          });
          if (typeof block.content !== 'string') {
            const images = block.content.filter((b): b is ImageBlock => b.type === 'image');
            if (images.length > 0)
              parts.push(
                { type: 'text', text: `Images returned by tool call ${block.tool_use_id}:` },
                ...images.map(imagePart),
              );
          }
        } else if (block.type === 'text') {
          parts.push({ type: 'text', text: (block as TextBlock).text });
        } else if (block.type === 'image') {
          parts.push(imagePart(block));
        }
      }
      if (parts.length === 0) continue;
      // Plain strings where possible: many local servers handle content arrays poorly.
      const textOnly = parts.every((p) => p.type === 'text');
      out.push({
        role: 'user',
        content: textOnly ? parts.map((p) => (p as OpenAI.Chat.ChatCompletionContentPartText).text).join('\n') : parts,
      });
    }
  }
  return out;
}

function imagePart(block: ImageBlock): ContentPart {
  return { type: 'image_url', image_url: { url: `data:${block.source.media_type};base64,${block.source.data}` } };
}

type Open =
  { kind: 'text' | 'thinking'; index: number } | { kind: 'tool'; index: number; id: string; key: number | undefined };

/** Chat-completion chunks → Anthropic-style events, with sequential block indices. */
class ChunkTranslator {
  finished = false;
  readonly #model: string;
  #started = false;
  #open: Open | undefined;
  #next = 0;
  #sawTool = false;
  #finishReason: string | null = null;
  #usage: OpenAI.CompletionUsage | undefined;

  constructor(model: string) {
    this.#model = model;
  }

  /** Appends the events of one chunk to `out`. */
  translate(chunk: OpenAI.Chat.ChatCompletionChunk, out: StreamEvent[]): void {
    if (!this.#started) {
      this.#started = true;
      out.push({
        type: 'message_start',
        message: apiMessage({
          id: chunk.id || `msg_${newUuid().replaceAll('-', '')}`,
          model: chunk.model || this.#model,
          content: [],
        }),
      });
    }
    if (chunk.usage) this.#usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as OpenAI.Chat.ChatCompletionChunk.Choice.Delta & {
      reasoning_content?: string | null;
      reasoning?: string | null;
    };
    const reasoning = delta.reasoning_content || delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') {
      if (this.#open?.kind !== 'thinking')
        this.#start({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' }, out);
      out.push({
        type: 'content_block_delta',
        index: this.#open!.index,
        delta: { type: 'thinking_delta', thinking: reasoning, estimated_tokens: null },
      });
    }
    this.text((delta.content ?? '') + (delta.refusal ?? ''), out);
    for (const call of delta.tool_calls ?? []) {
      const open = this.#open;
      const continues =
        open?.kind === 'tool' && (call.id ? call.id === open.id : call.index === undefined || call.index === open.key);
      if (!continues) {
        const id = call.id || `call_${newUuid().replaceAll('-', '')}`;
        this.#sawTool = true;
        this.#start(
          { kind: 'tool', id, key: call.index },
          { type: 'tool_use', id, name: call.function?.name ?? '', input: {} },
          out,
        );
      }
      const fragment = call.function?.arguments;
      if (fragment)
        out.push({
          type: 'content_block_delta',
          index: this.#open!.index,
          delta: { type: 'input_json_delta', partial_json: fragment },
        });
    }
    if (choice.finish_reason) {
      this.#finishReason = choice.finish_reason;
      this.finished = true;
    }
  }

  /** Appends the events of a chunk's text (none for empty text). */
  text(text: string, out: StreamEvent[]): void {
    if (text === '') return;
    if (this.#open?.kind !== 'text') this.#start({ kind: 'text' }, { type: 'text', text: '', citations: null }, out);
    out.push({ type: 'content_block_delta', index: this.#open!.index, delta: { type: 'text_delta', text } });
  }

  /** Closes the open block and appends message_delta and message_stop. */
  finish(out: StreamEvent[]): void {
    this.#close(out);
    const reason = this.#finishReason;
    const stop: StopReason =
      reason === 'length'
        ? 'max_tokens'
        : reason === 'tool_calls' || reason === 'function_call' || this.#sawTool
          ? 'tool_use'
          : reason === 'content_filter'
            ? 'refusal'
            : 'end_turn';
    const cached = this.#usage?.prompt_tokens_details?.cached_tokens ?? 0;
    out.push(
      messageDelta(
        { stop_reason: stop },
        {
          // Anthropic semantics: input_tokens excludes cache reads.
          input_tokens: this.#usage ? Math.max(0, this.#usage.prompt_tokens - cached) : null,
          output_tokens: this.#usage?.completion_tokens ?? 0,
          cache_creation_input_tokens: null,
          cache_read_input_tokens: this.#usage ? cached : null,
        },
      ),
    );
    out.push({ type: 'message_stop' });
  }

  #start(
    open: { kind: 'text' | 'thinking' } | { kind: 'tool'; id: string; key: number | undefined },
    block: AssistantContentBlock,
    out: StreamEvent[],
  ): void {
    this.#close(out);
    const index = this.#next++;
    this.#open = { ...open, index };
    out.push({ type: 'content_block_start', index, content_block: block });
  }

  #close(out: StreamEvent[]): void {
    if (this.#open) out.push({ type: 'content_block_stop', index: this.#open.index });
    this.#open = undefined;
  }
}

/** Classifies an OpenAI-compatible API error by status (a missing model also by its code). */
const fromApiError: ApiErrorMapper = (error, { redact, retryAfterMs }) => {
  const { code, message } = errorBody(error);
  const base = ModelError.fromStatus(error.status, redact(`API error ${error.status} ${message}`), retryAfterMs);
  return error.status === 404 || code === 'model_not_found'
    ? new ModelError({ kind: 'model_not_found', status: error.status, message: base.message, retryAfterMs })
    : base;
};
