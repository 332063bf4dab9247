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
