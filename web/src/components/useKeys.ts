/** True when a key goes to a text field (the page's keys leave it alone). */
export function isTyping(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  return !!target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA');
}

/** Keyboard navigation: j/k or ↓/↑ move between items, g/G (Home/End) first/last, / search, Esc clears. */
import { useEffect, useRef } from 'preact/hooks';

type Move = (selected: number, last: number) => number;
const MOVES: Record<string, Move> = {
  j: (s, last) => Math.min(last, s + 1),
  ArrowDown: (s, last) => Math.min(last, s + 1),
  k: (s) => Math.max(0, s - 1),
  ArrowUp: (s) => Math.max(0, s - 1),
  g: () => 0,
  Home: () => 0,
  G: (_s, last) => last,
  End: (_s, last) => last,
};

export function useKeys(o: {
  count: number;
  setSelected(update: (selected: number) => number): void;
  search: { current: HTMLInputElement | null };
  clearSearch(): void;
}): void {
  const latest = useRef(o);
  latest.current = o;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { count, setSelected, search, clearSearch } = latest.current;
      const target = e.target as HTMLElement | null;
      const typing = isTyping(e);
      if (e.key === 'Escape') {
        if (target === search.current) {
          clearSearch();
          search.current?.blur();
        }
        return;
      }
      if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '/') {
        e.preventDefault();
        search.current?.focus();
        return;
      }
      const move = Object.hasOwn(MOVES, e.key) ? MOVES[e.key] : undefined;
      if (!move || count === 0) return;
      e.preventDefault();
      setSelected((s) => move(s, count - 1));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
