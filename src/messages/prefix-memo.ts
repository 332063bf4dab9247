/**
 * Work over a list that mostly grows (a session's history), redone only for what changed. Each call
 * finds the prefix the list shares with the previous call's (the same objects, compared by
 * identity), keeps the states computed for it, and steps through the rest. A session's history
 * grows by a few messages a prompt, so a model request costs the same at its 10,000th prompt as at
 * its first; a list that was rewritten (a compaction) is redone from where it differs.
 *
 * The items must not change in place once they are in the list (the history's messages do not).
 */
export class PrefixMemo<T, S> {
  readonly #step: (previous: S | undefined, item: T) => S;
  readonly #rewind: ((to: S | undefined) => void) | undefined;
  #items: T[] = [];
  #states: S[] = [];

  /**
   * `step` gives the state after an item from the state before it (undefined before the first). `rewind`, when the
   * caller keeps output of its own, is told the state to go back to before the items past the shared prefix are
   * stepped again.
   */
  constructor(step: (previous: S | undefined, item: T) => S, rewind?: (to: S | undefined) => void) {
    this.#step = step;
    this.#rewind = rewind;
  }

  /** The state after the last item of `items` (undefined for an empty list). */
  update(items: readonly T[]): S | undefined {
    const known = this.#items;
    const shared = Math.min(known.length, items.length);
    let kept = 0;
    while (kept < shared && known[kept] === items[kept]) kept++;
    if (kept < known.length || kept < items.length) {
      if (kept < known.length) {
        known.length = kept;
        this.#states.length = kept;
        this.#rewind?.(this.#states[kept - 1]);
      }
      for (let i = kept; i < items.length; i++) {
        const item = items[i]!;
        this.#states.push(this.#step(this.#states[i - 1], item));
        known.push(item);
      }
    }
    return this.#states[items.length - 1];
  }
}
