/**
 * Finds the recorded answer of a request: the first recorded exchange not yet used whose canonical request is equal
 * (subagents and concurrent calls may ask in another order than the recording did). A miss says which recorded
 * request is nearest and where the two first differ.
 */
import { stableStringify } from './canonical.ts';
import { describeDifference, firstDifference, type Difference } from './diff.ts';

/** One recorded exchange. */
export interface Recorded<T> {
  /** The request as recorded (canonical form). */
  canonical: unknown;
  value: T;
  /** How the miss message names it ("model request #3"). */
  label: string;
}

/** At most this many recorded requests are compared in full to find the nearest. */
const NEAREST_CANDIDATES = 500;

export class RequestMatcher<T> {
  readonly #entries: Recorded<T>[];
  readonly #byKey = new Map<string, number[]>();
  readonly #used: boolean[];
  readonly #reuse: boolean;

  /** `reuse`: a request asked again once its recorded answers are used gets the last of them again. */
  constructor(entries: Recorded<T>[], options: { reuse?: boolean } = {}) {
    this.#entries = entries;
    this.#used = entries.map(() => false);
    this.#reuse = options.reuse ?? false;
    entries.forEach((entry, i) => {
      const key = stableStringify(entry.canonical);
      const list = this.#byKey.get(key);
      if (list) list.push(i);
      else this.#byKey.set(key, [i]);
    });
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The recorded exchange of `canonical`, or the text of the miss. */
  take(canonical: unknown): { entry: Recorded<T> } | { miss: string } {
    const list = this.#byKey.get(stableStringify(canonical));
    const free = list?.find((i) => !this.#used[i]);
    if (free !== undefined) {
      this.#used[free] = true;
      return { entry: this.#entries[free]! };
    }
    if (list && this.#reuse) return { entry: this.#entries[list.at(-1)!]! };
    if (list) return { miss: `${this.#entries[list[0]!]!.label} was asked again; the tape holds it fewer times` };
    return { miss: this.#nearest(canonical) };
  }

  #nearest(canonical: unknown): string {
    const unused = this.#entries.flatMap((_, i) => (this.#used[i] ? [] : [i]));
    const pool = (unused.length ? unused : this.#entries.map((_, i) => i)).slice(0, NEAREST_CANDIDATES);
    if (pool.length === 0) return 'the tape holds no such request';
    let best: { index: number; difference: Difference } | undefined;
    for (const index of pool) {
      const difference = firstDifference(this.#entries[index]!.canonical, canonical);
      if (difference && (!best || difference.matched > best.difference.matched)) best = { index, difference };
    }
    const entry = this.#entries[best!.index]!;
    const note = unused.length ? '' : ' (every recorded request was answered already)';
    return `nearest recorded: ${entry.label}${note}; ${describeDifference(best!.difference)}`;
  }
}
