/**
 * The model turns Claude Code 2.1.332 does not accept as an ending, and the note it sends the model instead
 * (measured with the differential suite, limits/max-tokens-continues and limits/empty-reply): a reply cut at
 * `max_tokens` is continued (up to 3 times in a prompt), and a reply with nothing visible is nudged once. The note
 * goes to the model as a `<system-reminder>` and to the stream as a synthetic user message; an empty reply is
 * left out of the conversation.
 */
import type { AssistantContentBlock } from '../messages/types.ts';

/** Claude Code's note after a reply cut at `max_tokens`. */
export const OUTPUT_LIMIT_NOTE =
  'Output token limit hit. Resume directly — no apology, no recap of what you were doing. ' +
  'Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.';
/** Claude Code's note after a reply with no visible output. */
export const EMPTY_REPLY_NOTE =
  '[Your previous response had no visible output. Please continue and produce a user-visible response.]';

/** Continuations of a cut reply in one prompt. */
const MAX_OUTPUT_LIMIT_RECOVERIES = 3;

/** What a prompt has spent of its recoveries. */
export interface RecoveryState {
  outputLimit: number;
  emptyNudged: boolean;
}

export const newRecoveryState = (): RecoveryState => ({ outputLimit: 0, emptyNudged: false });

/** A note for the model instead of ending, and whether the reply is left out of the conversation. */
export interface Recovery {
  note: string;
  dropReply: boolean;
}

/** The recovery for a reply without tool calls, or undefined when it ends the turn. */
export function recoveryFor(
  blocks: AssistantContentBlock[],
  stopReason: string | null,
  state: RecoveryState,
): Recovery | undefined {
  if (stopReason === 'max_tokens' && state.outputLimit < MAX_OUTPUT_LIMIT_RECOVERIES) {
    state.outputLimit++;
    return { note: OUTPUT_LIMIT_NOTE, dropReply: false };
  }
  const visible = blocks.some((b) => b.type === 'tool_use' || (b.type === 'text' && b.text.trim() !== ''));
  if (!visible && !state.emptyNudged && stopReason !== 'max_tokens') {
    state.emptyNudged = true;
    return { note: EMPTY_REPLY_NOTE, dropReply: true };
  }
  return undefined;
}

/** `text` as Claude Code wraps the notes it adds for the model. */
export const systemReminder = (text: string): string => `<system-reminder>\n${text}\n</system-reminder>`;
