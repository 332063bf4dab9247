/**
 * What a provider request can fail with (see `http-stream.ts`), turned into a `ModelError`, or
 * into the abort reason. Each provider classifies only its own API's error bodies.
 * Never leaks the API key: every message goes through `redact`.
 */
import { ModelError, parseRetryAfter } from './errors.ts';
import { HttpStatusError, htmlTitle } from './http-stream.ts';
import { isRecord } from '../process/guards.ts';

/** Classifies one API's error answer (a 4xx/5xx with its body). */
export type ApiErrorMapper = (
  error: HttpStatusError,
  tools: { redact: (text: string) => string; retryAfterMs: number | undefined },
) => ModelError;

export function toModelError(
  error: unknown,
  signal: AbortSignal,
  apiKey: string,
  fromApiError: ApiErrorMapper,
): unknown {
  if (signal.aborted) return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
  const redact = (text: string): string => (apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text);
  if (HttpStatusError.isInstance(error)) {
    const ms = Number(error.header('retry-after-ms') ?? NaN);
    const retryAfterMs = Number.isFinite(ms) && ms >= 0 ? ms : parseRetryAfter(error.header('retry-after'));
    return fromApiError(error, { redact, retryAfterMs });
  }
  if (ModelError.isInstance(error)) {
    return error.message.includes(apiKey) && apiKey.length >= 4
      ? new ModelError({ ...error, message: redact(error.message), cause: error.cause })
      : error;
  }
  // Broken JSON in an event's data.
  if (error instanceof SyntaxError)
    return new ModelError({ kind: 'server_error', message: redact(`Malformed stream data: ${error.message}`) });
  const message = error instanceof Error ? error.message || error.name : String(error);
  return new ModelError({
    kind: 'connection',
    message: redact(`Connection error: ${message}`),
    cause: error instanceof Error ? error : undefined,
  });
}

/** A web page as an error body (a proxy's 502 page): named by its title, not its markup. */
function htmlPage(body: string): string | undefined {
  if (!/^\s*</.test(body)) return undefined;
  const title = htmlTitle(body);
  return `the server answered HTML${title ? ` ("${title}")` : ''}`;
}

/** `{ "error": { "type": ..., "message": ... } }` (both APIs), or the bare body text (a web page by its title). */
export function errorBody(error: HttpStatusError): { type?: string; code?: string; message: string } {
  const body = error.body;
  const inner = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const bare = error.message.replace(/^\d{3} ?/, '');
  return {
    type: text(inner?.type),
    code: text(inner?.code),
    message: text(inner?.message) ?? (htmlPage(bare) || bare || `status ${error.status}`),
  };
}
