/** What went wrong in a prompt, read from its result. */
import type { ResultMessage } from './types.ts';

/**
 * A result's errors: the `errors` of an error subtype, or the text of a `success` that ended on a
 * failed model request (`is_error`, as Claude Code ends such a prompt); none for a success.
 */
export function errorsOf(result: ResultMessage): string[] {
  if (result.subtype !== 'success') return result.errors;
  return result.is_error ? [result.result] : [];
}
