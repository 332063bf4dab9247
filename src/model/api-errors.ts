/**
 * What both official SDKs (Anthropic's and OpenAI's, generated alike) throw, turned into a
 * `ModelError`, or into the abort reason. Each provider classifies only its own API errors.
 * Never leaks the API key: every message goes through `redact`.
 */
import { ModelError, parseRetryAfter } from './errors.ts';

/** The error classes both SDKs export. */
export interface SdkErrorClasses<E extends Error> {
  APIUserAbortError: new (...args: never[]) => Error;
  APIConnectionError: new (...args: never[]) => Error & { cause?: unknown };
  APIError: new (...args: never[]) => E;
}

/** An API error of the SDK, with the helpers a provider needs to classify it. */
export type ApiErrorMapper<E> = (
  error: E,
  tools: { redact: (text: string) => string; retryAfterMs: (headers: Headers | undefined) => number | undefined },
) => ModelError;

export function toModelError<E extends Error>(
  error: unknown,
  signal: AbortSignal,
  sdk: SdkErrorClasses<E> | undefined,
  apiKey: string,
  fromApiError: ApiErrorMapper<E>,
): unknown {
  if (signal.aborted) return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
  if (ModelError.isInstance(error)) return error;
  const redact = (text: string): string => (apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text);
  if (sdk && error instanceof sdk.APIUserAbortError)
    return new DOMException('This operation was aborted', 'AbortError');
  if (sdk && error instanceof sdk.APIConnectionError) {
    return new ModelError({
      kind: 'connection',
      message: redact(`Connection error: ${causeMessage(error)}`),
      cause: error.cause,
    });
  }
  if (sdk && error instanceof sdk.APIError) return fromApiError(error, { redact, retryAfterMs });
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return new ModelError({
      kind: 'connection',
      message: redact(`Request timed out or was cut: ${error.message}`),
      cause: error,
    });
  }
  // The body stream failing mid-response (undici: TypeError 'terminated', socket errors) or broken JSON.
  if (error instanceof SyntaxError)
    return new ModelError({ kind: 'server_error', message: redact(`Malformed stream data: ${error.message}`) });
  const message = error instanceof Error ? causeMessage(error) : String(error);
  return new ModelError({
    kind: 'connection',
    message: redact(`Connection error: ${message}`),
    cause: error instanceof Error ? error : undefined,
  });
}

/** `retry-after-ms`, else `retry-after`, in milliseconds. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  return Number.isFinite(ms) && ms >= 0 ? ms : parseRetryAfter(headers?.get('retry-after'));
}

/** The messages of an error and its causes: "fetch failed: connect ECONNREFUSED 127.0.0.1:1". */
function causeMessage(error: Error): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++, current = current.cause) {
    const message = current.message.replace(/\.$/, '');
    if (message !== '' && message !== 'Connection error' && !parts.includes(message)) parts.push(message);
  }
  return parts.join(': ') || error.name;
}
