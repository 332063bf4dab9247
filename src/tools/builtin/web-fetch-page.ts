/**
 * WebFetch's fetching (web-fetch.ts is the tool): the URL checked, same-host redirects followed, at most `maxBytes`
 * of a text page read and HTML converted to Markdown (turndown, loaded on first use).
 */
import { AgentpipeError } from '../../process/errors.ts';
import { VERSION } from '../../version.ts';

/** Claude Code's limits: URL length, HTML converted, redirects. */
const MAX_URL_LENGTH = 2000;
const MAX_HTML_CHARS = 1024 * 1024;
const MAX_REDIRECTS = 10;
export const TRUNCATED = '[Content truncated due to length...]';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The standard reason phrase of an HTTP status. node:http is fetched on first use: importing it
 * statically costs every run ~20 ms (its ESM facade reads the getters that load undici).
 */
export function statusText(code: number, unknown = 'Unknown Status'): string {
  return process.getBuiltinModule('node:http').STATUS_CODES[code] ?? unknown;
}

/** A fetched page as the cache keeps it: Markdown (or the text as it came) and the response facts. */
export interface Page {
  bytes: number;
  code: number;
  codeText: string;
  content: string;
  contentType: string;
  expires: number;
}

export type Fetched =
  | { type: 'page'; page: Page }
  | { type: 'redirect'; from: string; to: string; code: number }
  | { type: 'status'; code: number; retryAfter?: string };

/** A failure the model should read as the tool result (bad URL, unreachable host, binary content). */
export class FetchError extends AgentpipeError {
  static override readonly errorName: string = 'FetchError';
}

/**
 * The URL to fetch: valid, http(s), no credentials, a real host name; http upgraded to https except for loopback hosts.
 */
export function checkedUrl(given: string): URL {
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
export async function fetchFollowing(
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
