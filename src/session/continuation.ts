/**
 * The message a wrapped CLI (`--harness`) gets when a cluster worker takes its session over and it resumes its own
 * session to go on with the turn it was running (Session.continueCutTurn).
 */
import type { InputUserMessage } from '../messages/control.ts';

/** Words of the wrapped CLI's continuation message a test (or a fake API) can find it by. */
export const HARNESS_CONTINUATION_MARK = 'the worker running your last turn was lost before the turn ended';

/**
 * The message a wrapped CLI gets to go on with its cut turn. It resumed its own session, whose history holds the turn
 * as far as it got; agentpipe did not journal its tool calls, so what was running then may or may not have run: it is
 * told so, and to check before it repeats anything. The prompt is repeated, in case the wrapped CLI had not recorded
 * it before it was stopped.
 */
export function harnessContinuation(input: InputUserMessage | undefined): string {
  const content = input?.message.content;
  const text =
    typeof content === 'string'
      ? content
      : (content ?? []).flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n');
  return (
    `[agentpipe: ${HARNESS_CONTINUATION_MARK}, and this session was resumed on another worker. Go on with that turn ` +
    `from where it stopped and end it as you would have. A tool call that was running then has an unknown outcome: ` +
    `it was not run again; check what it did before you repeat it.]` +
    (text ? `\n\nThe prompt of that turn was:\n\n${text}` : '')
  );
}
