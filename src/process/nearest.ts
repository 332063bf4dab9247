/**
 * The nearest of some names to a word someone typed: the one suggestion of "did you mean …?" lines (a mistyped
 * command, model, settings key or tool name in a permission rule).
 */

/** Damerau-Levenshtein distance (the optimal string alignment variant, as commander suggests options). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `word` (a typo: at most 3 edits and under half the word changed), if any. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    const similarity = (Math.max(word.length, name.length) - distance) / Math.max(word.length, name.length);
    if (distance <= 3 && similarity > 0.4 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
