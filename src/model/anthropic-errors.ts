/** The Anthropic API's errors (HTTP answers and in-stream `error` events) as `ModelError`s. */
import { errorBody, type ApiErrorMapper } from './api-errors.ts';
import { ModelError, type ModelErrorKind } from './errors.ts';

/** An `error` event inside a 200 stream (e.g. overloaded_error mid-response). */
export function streamError(raw: { error?: { type?: unknown; message?: unknown } }): ModelError {
  const type = typeof raw.error?.type === 'string' ? raw.error.type : undefined;
  const message = typeof raw.error?.message === 'string' ? raw.error.message : 'the stream reported an error';
  return new ModelError({
    kind: (type ? ERROR_TYPES[type] : undefined) ?? 'server_error',
    message: `API error${type ? ` (${type})` : ''}: ${message}`,
  });
}

/** Error `type`s of the API (HTTP bodies and in-stream `error` events) → our kinds. */
const ERROR_TYPES: Record<string, ModelErrorKind> = {
  authentication_error: 'authentication_failed',
  permission_error: 'authentication_failed',
  billing_error: 'billing_error',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  api_error: 'server_error',
  timeout_error: 'server_error',
  not_found_error: 'model_not_found',
  invalid_request_error: 'invalid_request',
  request_too_large: 'invalid_request',
};

/** Classifies an Anthropic API error by status, then by the body's error type. */
export const fromApiError: ApiErrorMapper = (error, { redact, retryAfterMs }) => {
  const { type, message: detail } = errorBody(error);
  const typed = type ? ERROR_TYPES[type] : undefined;
  const message = redact(`API error ${error.status}${type ? ` (${type})` : ''}: ${detail}`);
  const byStatus = ModelError.fromStatus(error.status, message, retryAfterMs);
  // A 4xx/5xx the status alone does not classify well (e.g. 400 billing_error) defers to the body's type.
  if (typed && (byStatus.kind === 'invalid_request' || byStatus.kind === 'unknown')) {
    return new ModelError({ kind: typed, status: error.status, message, retryAfterMs });
  }
  return byStatus;
};
