import { AgentpipeError } from '../process/errors.ts';

/** What kind of failure a model request met; drives retries and `assistant.error`. */
export type ModelErrorKind =
  | 'authentication_failed'
  | 'rate_limit'
  | 'overloaded'
  | 'server_error'
  | 'invalid_request'
  | 'model_not_found'
  | 'billing_error'
  | 'connection'
  | 'aborted'
  | 'unknown';

/**
 * What went wrong with an answer that had begun (a 2xx response), when the provider can tell; the prompt's result
 * names it (agent/api-error.ts). `html`: the API answered a web page, not an event stream (a wrong base URL, a proxy's
 * login page); `cut`: the stream ended before the answer did.
 */
export type AnswerFault = 'html' | 'cut';

/** An error of a model request, recognisable across duplicate bundles (`ModelError.isInstance`). */
export class ModelError extends AgentpipeError {
  static override readonly errorName: string = 'ModelError';
  /** HTTP status, when there was a response. */
  readonly status: number | undefined;
  readonly kind: ModelErrorKind;
  /** What went wrong with an answer that had begun, when known. */
  readonly fault: AnswerFault | undefined;
  /** Server-requested wait before a retry (from `retry-after`). */
  readonly retryAfterMs: number | undefined;
  /** `host:port` the request went to, when it never got an answer (a refused, reset or unresolved connection). */
  readonly endpoint: string | undefined;

  constructor(options: {
    message: string;
    kind: ModelErrorKind;
    status?: number;
    retryAfterMs?: number;
    cause?: unknown;
    fault?: AnswerFault;
    endpoint?: string;
  }) {
    super(options.message, { cause: options.cause });
    this.kind = options.kind;
    this.fault = options.fault;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.endpoint = options.endpoint;
  }

  /** True for failures worth another attempt (429, 5xx, 529, a cut connection). */
  get retryable(): boolean {
    return (
      this.kind === 'rate_limit' ||
      this.kind === 'overloaded' ||
      this.kind === 'server_error' ||
      this.kind === 'connection'
    );
  }

  /** Classifies an HTTP status. */
  static fromStatus(status: number, message: string, retryAfterMs?: number, cause?: unknown): ModelError {
    const kind: ModelErrorKind =
      status === 401 || status === 403
        ? 'authentication_failed'
        : status === 429
          ? 'rate_limit'
          : status === 529
            ? 'overloaded'
            : status === 402
              ? 'billing_error'
              : status === 404
                ? 'model_not_found'
                : status >= 500
                  ? 'server_error'
                  : status >= 400
                    ? 'invalid_request'
                    : 'unknown';
    return new ModelError({ message, kind, status, retryAfterMs, cause });
  }
}

/** Parses a `retry-after` header (seconds or HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
