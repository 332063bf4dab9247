/**
 * WebFetch, as in Claude Code: fetches a URL (http upgraded to https, except for loopback hosts),
 * follows redirects only within the same host (a redirect elsewhere comes back to the model as a
 * message naming the new URL), reads at most 10 MB, converts HTML to Markdown (turndown, loaded
 * on first use), and answers `prompt` about the page with the session's model. Pages are cached
 * for 15 minutes per URL. `tool_use_result` is the SDK's `WebFetchOutput`.
 */
import { AgentpipeError, errorMessage } from '../../process/errors.ts';
import type { MessageParam, StreamEvent } from '../../messages/types.ts';
import type { ModelProvider } from '../../model/types.ts';
import { VERSION } from '../../version.ts';
import { objectSchema, optionalNumber, requireText } from '../input.ts';
import { toolUseError, ToolInputError, type Tool, type ToolContext, type ToolResult } from '../types.ts';

/** Claude Code's limits: URL length, bytes read, HTML converted, Markdown shown to the model, redirects, cache. */
const MAX_URL_LENGTH = 2000;
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_HTML_CHARS = 1024 * 1024;
const MAX_MARKDOWN_CHARS = 100_000;
const MAX_REDIRECTS = 10;
const DEFAULT_TIMEOUT_MS = 60_000;
const CACHE_TTL_MS = 15 * 60_000;
const CACHE_MAX_CHARS = 50 * 1024 * 1024;
const TRUNCATED = '[Content truncated due to length...]';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The standard reason phrase of an HTTP status. node:http is fetched on first use: importing it
 * statically costs every run ~20 ms (its ESM facade reads the getters that load undici).
 */
function statusText(code: number, unknown = 'Unknown Status'): string {
  return process.getBuiltinModule('node:http').STATUS_CODES[code] ?? unknown;
}

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

/** A fetched page as the cache keeps it: Markdown (or the text as it came) and the response facts. */
interface Page {
  bytes: number;
  code: number;
  codeText: string;
  content: string;
  contentType: string;
  expires: number;
}

type Fetched =
  | { type: 'page'; page: Page }
  | { type: 'redirect'; from: string; to: string; code: number }
  | { type: 'status'; code: number; retryAfter?: string };

/** A failure the model should read as the tool result (bad URL, unreachable host, binary content). */
class FetchError extends AgentpipeError {
  static override readonly errorName: string = 'FetchError';
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

/**
 * The URL to fetch: valid, http(s), no credentials, a real host name; http upgraded to https except for loopback hosts.
 */
function checkedUrl(given: string): URL {
  if (given.length > MAX_URL_LENGTH)
    throw new FetchError(`Invalid URL: it is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new FetchError(`Invalid URL "${given}". The URL provided could not be parsed.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchError(`Invalid URL "${given}": only http and https URLs can be fetched`);
  if (url.username || url.password)
    throw new FetchError(`Invalid URL "${given}": URLs with a user name or password are not fetched`);
  if (!isLoopback(url.hostname) && url.hostname.replace(/\.$/, '').split('.').length < 2) {
    throw new FetchError(`Invalid URL "${given}": the host name is not a domain`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) url.protocol = 'https:';
  return url;
}

/** localhost, 127.0.0.0/8 and ::1: the only hosts fetched over plain http. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}

/** A redirect WebFetch follows itself: same scheme, host and port, no credentials. */
function sameHost(from: URL, to: URL): boolean {
  return (
    to.protocol === from.protocol &&
    to.hostname === from.hostname &&
    to.port === from.port &&
    !to.username &&
    !to.password
  );
}

/**
 * Fetches `url`, following same-host redirects; a redirect elsewhere or an HTTP error status is returned, not thrown.
 */
async function fetchFollowing(
  url: URL,
  signal: AbortSignal,
  limits: { timeoutMs: number; maxBytes: number },
): Promise<Fetched> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  let current = url;
  try {
    for (let hops = 0; ; hops++) {
      const response = await fetch(current, {
        redirect: 'manual',
        signal: both,
        headers: { Accept: 'text/markdown, text/html, */*', 'User-Agent': `agentpipe/${VERSION} (WebFetch)` },
      });
      if (REDIRECT_STATUSES.has(response.status)) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (!location?.trim()) return { type: 'status', code: response.status };
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new FetchError(`${current.href} redirects to an invalid URL: ${location.slice(0, 200)}`);
        }
        if (!sameHost(current, next))
          return { type: 'redirect', from: current.href, to: next.href, code: response.status };
        if (hops >= MAX_REDIRECTS)
          throw new FetchError(`Too many redirects (exceeded ${MAX_REDIRECTS}) fetching ${url.href}`);
        current = next;
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel();
        const retryAfter = response.headers.get('retry-after') ?? undefined;
        return {
          type: 'status',
          code: response.status,
          ...(retryAfter && /^\d{1,6}$/.test(retryAfter) ? { retryAfter } : {}),
        };
      }
      return { type: 'page', page: await pageOf(response, current, limits.maxBytes) };
    }
  } catch (error) {
    if (signal.aborted || FetchError.isInstance(error)) throw error;
    if (timeout.aborted)
      throw new FetchError(`Fetching ${current.href} timed out after ${Math.round(limits.timeoutMs / 100) / 10} s`);
    throw new FetchError(`Fetching ${current.href} failed: ${networkReason(error)}`);
  }
}

/** The cause of a failed fetch in words (DNS, refused, reset, TLS). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const words: Record<string, string> = {
    ENOTFOUND: 'the host name could not be resolved (DNS)',
    EAI_AGAIN: 'the host name could not be resolved (DNS, temporary failure)',
    ECONNREFUSED: 'the connection was refused',
    ECONNRESET: 'the connection was reset',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the network is unreachable',
    UND_ERR_SOCKET: 'the connection closed unexpectedly',
  };
  if (code && words[code]) return `${words[code]} (${code})`;
  const message =
    typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return code ? `${message} (${code})` : message;
}

/** Content types read as text; anything else (images, PDFs, archives) is refused. */
function isTextType(type: string): boolean {
  if (type === '' || type.startsWith('text/')) return true;
  if (
    /^application\/(json|xml|javascript|x-javascript|ecmascript|yaml|x-yaml|toml|x-ndjson|x-sh|sql|graphql)$/.test(type)
  )
    return true;
  return /\+(json|xml)$/.test(type);
}

/** Reads a 2xx response: text only, at most `maxBytes` (the rest is cut), HTML converted to Markdown. */
async function pageOf(response: Response, url: URL, maxBytes: number): Promise<Page> {
  const header = response.headers.get('content-type') ?? '';
  const type = header.split(';')[0]!.trim().toLowerCase();
  if (!isTextType(type)) {
    await response.body?.cancel();
    const length = Number(response.headers.get('content-length'));
    const size = Number.isFinite(length) && length > 0 ? `, ${length} bytes` : '';
    throw new FetchError(
      `${url.href} is ${type}${size}, not a text page; WebFetch reads HTML and other text. ` +
        'Download it with Bash (curl -o) if you need the file.',
    );
  }
  const { bytes, cut } = await readCapped(response, maxBytes);
  if (bytes.includes(0)) {
    throw new FetchError(
      `${url.href} looks binary (${type || 'no content type'}, ${bytes.length} bytes); WebFetch reads HTML and ` +
        `other text`,
    );
  }
  const text = decode(bytes, header);
  const html =
    type === 'text/html' ||
    type === 'application/xhtml+xml' ||
    (type === '' && /^\s*<(!doctype html|html)/i.test(text));
  let content = html ? await htmlToMarkdown(text) : text;
  if (cut)
    content +=
      `\n\n[Content truncated: the page is larger than ${maxBytes} bytes; only the first ${maxBytes} bytes were ` +
      `read]`;
  const code = response.status;
  return {
    bytes: bytes.length,
    code,
    codeText: response.statusText || statusText(code, ''),
    content,
    contentType: type,
    expires: 0,
  };
}

/** The body's first `maxBytes` bytes; the rest is not downloaded. */
async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  if (!response.body) return { bytes: Buffer.alloc(0), cut: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const next = (await reader.read()) as { done: true; value?: undefined } | { done: false; value: Uint8Array };
    if (next.done) return { bytes: Buffer.concat(chunks, total), cut: false };
    chunks.push(next.value);
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks, total).subarray(0, maxBytes), cut: true };
    }
  }
}

/** The body as text, in the charset the response names (UTF-8 when it names none or one Node does not know). */
function decode(bytes: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

type Converter = { turndown(html: string): string };
let converter: Promise<Converter> | undefined;

/** HTML → Markdown with turndown (scripts, styles, iframes dropped); the raw HTML when conversion fails. */
async function htmlToMarkdown(html: string): Promise<string> {
  try {
    converter ??= import('turndown').then(({ default: TurndownService }) => {
      const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
      service.remove(['style', 'script', 'noscript', 'iframe']);
      return service;
    });
    const markdown = (await converter).turndown(html.slice(0, MAX_HTML_CHARS));
    return html.length > MAX_HTML_CHARS ? `${markdown}\n\n${TRUNCATED}` : markdown;
  } catch {
    return html;
  }
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
