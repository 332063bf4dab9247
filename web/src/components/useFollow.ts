/**
 * Following a growing list (a live session): while `follow` holds, the scroller keeps its end in
 * view as rows arrive and grow, unless the user scrolled up; scrolling back down to the end follows
 * again. Named states: `pinned` (at the end, following) or `reading` (the user moved up).
 *
 * The intent to leave is read from the input (wheel, keys, touch), not only from scroll events:
 * a wheel scroll is animated, and a write to `scrollTop` while content streams in would cancel
 * it before it moved a pixel.
 */
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { isTyping } from './useKeys.ts';

/** Within this many pixels of its end, the list counts as at the end. */
const SLACK = 24;
const UP_KEYS = new Set(['ArrowUp', 'PageUp', 'Home', 'k', 'g']);

export type FollowState = 'pinned' | 'reading';

export function useFollow(scroller: RefObject<HTMLElement | null>, follow: boolean): void {
  const state = useRef<FollowState>('pinned');
  const stick = () => {
    const el = scroller.current;
    if (follow && el && state.current === 'pinned' && el.scrollHeight - el.scrollTop - el.clientHeight > 0)
      el.scrollTop = el.scrollHeight;
  };

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const set = (next: FollowState) => {
      state.current = next;
      el.dataset.follow = next;
    };
    set(state.current);
    let lastTop = el.scrollTop;
    let touchY = 0;
    const onScroll = () => {
      const fromEnd = el.scrollHeight - el.scrollTop - el.clientHeight;
      if (el.scrollTop < lastTop && fromEnd > SLACK) set('reading');
      else if (el.scrollTop >= lastTop && fromEnd <= SLACK) set('pinned');
      lastTop = el.scrollTop;
    };
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0) set('reading');
    };
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event)) return;
      if (UP_KEYS.has(event.key)) set('reading');
      else if (event.key === 'End') {
        set('pinned');
        stick();
      }
    };
    const onTouchStart = (event: TouchEvent) => {
      touchY = event.touches[0]?.clientY ?? 0;
    };
    const onTouchMove = (event: TouchEvent) => {
      if ((event.touches[0]?.clientY ?? 0) > touchY) set('reading');
    };
    const options = { passive: true };
    el.addEventListener('scroll', onScroll, options);
    el.addEventListener('wheel', onWheel, options);
    el.addEventListener('touchstart', onTouchStart, options);
    el.addEventListener('touchmove', onTouchMove, options);
    globalThis.addEventListener('keydown', onKey);
    // A row measured taller changes no state of ours: follow the content's size itself.
    const observer = new ResizeObserver(stick);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => {
      el.removeEventListener('scroll', onScroll);
      el.removeEventListener('wheel', onWheel);
      el.removeEventListener('touchstart', onTouchStart);
      el.removeEventListener('touchmove', onTouchMove);
      globalThis.removeEventListener('keydown', onKey);
      observer.disconnect();
    };
  }, [follow]);
  useLayoutEffect(stick);
}
