/**
 * The notices Claude Code writes into the conversation when a turn is interrupted. The loop writes
 * them, resume recognises them in a transcript, the projections leave them out of what the user
 * said: one source, or resume breaks.
 */

/** The user message recorded when a model response is interrupted. */
export const INTERRUPTED = '[Request interrupted by user]';
/** The tool result (and user message) recorded when running tools are interrupted. */
export const INTERRUPTED_TOOLS = '[Request interrupted by user for tool use]';

/** True for either notice. */
export const isInterruptionNotice = (text: string): boolean => text === INTERRUPTED || text === INTERRUPTED_TOOLS;

/**
 * A tool call refused before it ran, as Claude Code words it for the model:
 * `<tool_use_error>…</tool_use_error>`. The faces shown to people show the message without the tags.
 */
export const toolUseError = (message: string): string => `<tool_use_error>${message}</tool_use_error>`;

/** The message inside `<tool_use_error>` tags, or the text as it is. */
export const withoutToolUseErrorTags = (text: string): string =>
  /^<tool_use_error>([\s\S]*)<\/tool_use_error>$/.exec(text)?.[1] ?? text;

/**
 * The tool result of a call the user refused and stopped the prompt with (a permission answer with `interrupt: true`),
 * in Claude Code's words; its `tool_use_result` is `USER_REJECTED`.
 */
export const USER_REJECTED_TOOL =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the " +
  'new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.';
export const USER_REJECTED = 'User rejected tool use';

/**
 * Claude Code 2.1.332's first error line of a prompt that ended without a reply (an interrupt): the kind of the last
 * message, its last block's kind (`n/a` for a user message) and the last stop reason.
 */
export function edeDiagnostic(lastType: string, lastContentType: string, stopReason: string | null): string {
  return `[ede_diagnostic] result_type=${lastType} last_content_type=${lastContentType} stop_reason=${stopReason}`;
}
