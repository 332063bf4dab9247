/**
 * WebFetch, as in Claude Code: fetches a URL (http upgraded to https, except for loopback hosts),
 * follows redirects only within the same host (a redirect elsewhere comes back to the model as a
 * message naming the new URL), reads at most 10 MB, converts HTML to Markdown (turndown, loaded
 * on first use), and answers `prompt` about the page with the session's model. Pages are cached
 * for 15 minutes per URL. `tool_use_result` is the SDK's `WebFetchOutput`.
 */
import { errorMessage } from '../../process/errors.ts';
import type { MessageParam, StreamEvent } from '../../messages/types.ts';
import type { ModelProvider } from '../../model/types.ts';
import { objectSchema, optionalNumber, requireText } from '../input.ts';
import { toolUseError, ToolInputError, type Tool, type ToolContext, type ToolResult } from '../types.ts';
import {
  checkedUrl,
  fetchFollowing,
  FetchError,
  statusText,
  TRUNCATED,
  type Fetched,
  type Page,
} from './web-fetch-page.ts';

/** Claude Code's limits: URL length, bytes read, HTML converted, Markdown shown to the model, redirects, cache. */
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_MARKDOWN_CHARS = 100_000;
const DEFAULT_TIMEOUT_MS = 60_000;
const CACHE_TTL_MS = 15 * 60_000;
const CACHE_MAX_CHARS = 50 * 1024 * 1024;

/** The SDK's `WebFetchOutput`. */
export interface WebFetchOutput {
  bytes: number;
  code: number;
  codeText: string;
  result: string;
  durationMs: number;
  url: string;
}

/** Limits of one WebFetch tool (tests shorten them). */
export interface WebFetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  cacheTtlMs?: number;
}

/** What WebFetch can use of the calling agent: its provider and model, and the prompt's usage. */
interface AgentParent {
  ctx: { provider: ModelProvider; model: string; maxTokens?: number };
  run: { usage: { add(model: string, counts: TokenCounts): number } };
}

/** Token counts of one request, as the prompt's usage tracker adds them. */
interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** WebFetch as the agent loop calls it: with the calling agent's provider (`callInAgent`). */
export type WebFetchTool = Tool & {
  callInAgent(input: Record<string, unknown>, context: ToolContext, parent: AgentParent): Promise<ToolResult>;
};

const DESCRIPTION = [
  'Fetches a URL, converts the page to Markdown, and answers `prompt` about it with a model.',
  '',
  'Usage notes:',
  '  - IMPORTANT: WebFetch fails for pages behind a login (Google Docs, Confluence, Jira, private GitHub); prefer an ' +
    'MCP tool with access, or gh for GitHub.',
  '  - The URL must be a fully-formed valid URL; http URLs are upgraded to https.',
  '  - The prompt says what you want to know from the page.',
  '  - This tool changes no files. Long pages are truncated; `offset` reads on from the character position a ' +
    'previous result gave.',
  '  - Pages are cached for 15 minutes per URL.',
  '  - When a URL redirects to a different host, the tool tells you the redirect URL; fetch that URL with a new ' +
    'WebFetch call.',
].join('\n');

/** A WebFetch tool with its own cache and limits. */
export function createWebFetchTool(options: WebFetchOptions = {}): WebFetchTool {
  const cache = new PageCache(options.cacheTtlMs ?? CACHE_TTL_MS);
  const limits = { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBytes: options.maxBytes ?? MAX_BYTES };
  const run = async (
    input: Record<string, unknown>,
    context: ToolContext,
    parent?: AgentParent,
  ): Promise<ToolResult> => {
    const started = Date.now();
    const given = input.url;
    if (typeof given !== 'string' || given === '')
      throw new ToolInputError('The required parameter `url` is missing or not a string');
    const prompt = requireText(input, 'prompt');
    const offset = Math.floor(optionalNumber(input, 'offset', 0) ?? 0);
    let fetched: Fetched;
    try {
      const url = checkedUrl(given);
      const cached = cache.get(given);
      fetched = cached ? { type: 'page', page: cached } : await fetchFollowing(url, context.signal, limits);
      if (!cached && fetched.type === 'page') cache.set(given, fetched.page);
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (FetchError.isInstance(error)) return toolUseError(error.message);
      throw error;
    }
    const output = (code: number, result: string, bytes: number, codeText = statusText(code)): ToolResult => {
      const data: WebFetchOutput = { bytes, code, codeText, result, durationMs: Date.now() - started, url: given };
      return { content: result, data };
    };
    if (fetched.type === 'redirect') {
      const status = `${fetched.code} ${statusText(fetched.code)}`;
      const result =
        `REDIRECT DETECTED: The URL redirects to a different host.\n\n` +
        `Original URL: ${fetched.from}\nRedirect URL: ${fetched.to}\nStatus: ${status}\n\n` +
        `To complete your request, fetch the redirect URL with WebFetch again:\n` +
        `- url: "${fetched.to}"\n- prompt: "${prompt}"`;
      return output(fetched.code, result, Buffer.byteLength(result));
    }
    if (fetched.type === 'status') {
      // As in Claude Code, an HTTP error status is an answer (with its code), not a failed call.
      const retry = fetched.retryAfter ? `\nRetry-After: ${fetched.retryAfter}` : '';
      const status = `${fetched.code} ${statusText(fetched.code)}`;
      const result =
        `The server returned HTTP ${status}.${retry}\n\nThe response body was not retrieved. ` +
        'If this URL requires authentication, use an authenticated tool (e.g. `gh` for GitHub, or an ' +
        'MCP-provided fetch tool) instead of WebFetch.';
      return output(fetched.code, result, 0);
    }
    const { page } = fetched;
    if (offset > 0 && offset >= page.content.length) {
      return toolUseError(`offset ${offset} is past the end of the page text (${page.content.length} characters)`);
    }
    const text = windowOf(page, offset);
    const result = parent ? await applyPrompt(parent, text, prompt, context.signal) : withoutModel(text, prompt);
    return output(page.code, result, page.bytes, page.codeText);
  };
  return {
    name: 'WebFetch',
    description: DESCRIPTION,
    inputSchema: objectSchema(
      {
        url: { type: 'string', format: 'uri', description: 'The URL to fetch content from' },
        prompt: { type: 'string', description: 'The prompt to run on the fetched content' },
        offset: {
          type: 'number',
          description: 'Character position in the page text to start reading from (the value a previous result gave)',
        },
      },
      ['url', 'prompt'],
    ),
    // It changes no files, but it reaches the network: asked for in the default mode, as in Claude Code.
    isReadOnly: () => false,
    call: (input, context) => run(input, context),
    callInAgent: (input, context, parent) => run(input, context, parent),
  };
}

/** The page text from `offset`, at most MAX_MARKDOWN_CHARS, with a note on how to read on. */
function windowOf(page: Page, offset: number): string {
  const end = offset + MAX_MARKDOWN_CHARS;
  const slice = page.content.slice(offset, end);
  if (end >= page.content.length) return slice;
  return (
    `${slice}\n\n${TRUNCATED} (characters ${offset} to ${end} of ${page.content.length}; call WebFetch again ` +
    `with offset: ${end} to read on)`
  );
}

/** The request Claude Code sends its small model: the page, the prompt, and how to answer. */
function promptFor(text: string, prompt: string): string {
  return (
    `\nWeb page content:\n---\n${text}\n---\n\n${prompt}\n\nProvide a concise response based only on the ` +
    `content above. In your response:\n` +
    ' - Enforce a strict 125-character maximum for quotes from any source document. Open Source Software is ok ' +
    'as long as we respect the license.\n' +
    ' - Use quotation marks for exact language from articles; any language outside of the quotation should ' +
    'never be word-for-word the same.\n' +
    ' - You are not a lawyer and never comment on the legality of your own prompts and responses.\n' +
    ' - Never produce or reproduce exact song lyrics.\n'
  );
}

/**
 * Outside an agent loop (a library caller invoking the tool directly) there is no model to ask:
 * the page itself comes back, with the prompt, for the caller's model to read.
 */
function withoutModel(text: string, prompt: string): string {
  return (
    `Prompt: ${prompt}\n\nWeb page content (the prompt was not applied: no model is available to this ` +
    `call):\n---\n${text}\n---`
  );
}

/** Answers `prompt` about the page with the calling agent's provider and model (the usage counts in the prompt's). */
async function applyPrompt(parent: AgentParent, text: string, prompt: string, signal: AbortSignal): Promise<string> {
  const { provider, model } = parent.ctx;
  const messages: MessageParam[] = [{ role: 'user', content: promptFor(text, prompt) }];
  let answer = '';
  let usage: TokenCounts | undefined;
  let reported = model;
  const maxTokens = Math.min(parent.ctx.maxTokens ?? 8192, 8192);
  try {
    for await (const event of provider.stream({
      model,
      system: '',
      messages,
      tools: [],
      maxTokens,
      abortSignal: signal,
    })) {
      answer += textOf(event);
      if (event.type === 'message_start') {
        reported = event.message.model || model;
        usage = { ...event.message.usage };
      } else if (event.type === 'message_delta' && usage) {
        usage.output_tokens = event.usage.output_tokens;
        if (event.usage.input_tokens != null) usage.input_tokens = event.usage.input_tokens;
      } else if (event.type === 'message_stop') break;
    }
  } catch (error) {
    if (signal.aborted) throw error;
    const why = errorMessage(error);
    return `[The prompt could not be applied: the model request failed (${why}). The page content follows.]\n\n${text}`;
  } finally {
    if (usage) parent.run.usage.add(reported, usage);
  }
  return answer || 'No response from model';
}

const textOf = (event: StreamEvent): string =>
  event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : '';

/** Fetched pages by the URL the model gave, for 15 minutes, at most ~50 M characters in all (oldest dropped first). */
class PageCache {
  readonly #pages = new Map<string, Page>();
  readonly #ttlMs: number;
  #chars = 0;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  get(url: string): Page | undefined {
    const page = this.#pages.get(url);
    if (page && page.expires > Date.now()) return page;
    if (page) this.#drop(url, page);
    return undefined;
  }

  set(url: string, page: Page): void {
    const old = this.#pages.get(url);
    if (old) this.#drop(url, old);
    this.#pages.set(url, { ...page, expires: Date.now() + this.#ttlMs });
    this.#chars += page.content.length;
    for (const [key, value] of this.#pages) {
      if (this.#chars <= CACHE_MAX_CHARS) break;
      this.#drop(key, value);
    }
  }

  #drop(url: string, page: Page): void {
    this.#pages.delete(url);
    this.#chars -= page.content.length;
  }
}

/** The built-in WebFetch (one cache for the process, as Claude Code has). */
export const webFetchTool = createWebFetchTool();
