/**
 * The history as a model request carries it: consecutive messages of the same role joined (the
 * APIs require alternation) and wire-only fields (`citations: null`) left out. Kept per history
 * array and brought up to date at each request (PrefixMemo): only the messages added since the
 * last request are converted, so a request's cost does not grow with the session.
 */
import type { MessageParam } from '../messages/types.ts';
import { PrefixMemo } from '../messages/prefix-memo.ts';

/** The joined messages so far, and what the last of them was after each message of the history. */
class MergedView {
  readonly out: MessageParam[] = [];
  readonly memo = new PrefixMemo<MessageParam, { length: number; last: MessageParam }>(
    (_, message) => this.#add(message),
    (to) => {
      this.out.length = to?.length ?? 0;
      if (to) this.out[to.length - 1] = to.last;
    },
  );

  #add(original: MessageParam): { length: number; last: MessageParam } {
    const message = forRequest(original);
    const last = this.out.at(-1);
    if (last && last.role === message.role) {
      // A new object: the state kept for the earlier message still holds the old one.
      this.out[this.out.length - 1] = {
        role: last.role,
        content: [...blocksOf(last.content), ...blocksOf(message.content)],
      };
    } else this.out.push(message);
    return { length: this.out.length, last: this.out.at(-1)! };
  }
}

const views = new WeakMap<MessageParam[], MergedView>();

/** The request's messages for `history` (a new array; its messages are shared with earlier requests' arrays). */
export function mergeConsecutive(history: MessageParam[]): MessageParam[] {
  let view = views.get(history);
  if (!view) views.set(history, (view = new MergedView()));
  view.memo.update(history);
  return view.out.slice();
}

function forRequest(original: MessageParam): MessageParam {
  if (typeof original.content === 'string') return original;
  return {
    ...original,
    content: original.content.map((b) => (b.type === 'text' && 'citations' in b ? { type: 'text', text: b.text } : b)),
  };
}

function blocksOf(content: MessageParam['content']): Exclude<MessageParam['content'], string> {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}
