/** @tanstack/virtual-core bound to Preact hooks (what @tanstack/react-virtual does for React). */
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';
import {
  Virtualizer,
  elementScroll,
  observeElementOffset,
  observeElementRect,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';

type Options = Pick<
  VirtualizerOptions<HTMLElement, HTMLElement>,
  'count' | 'getScrollElement' | 'estimateSize' | 'getItemKey' | 'overscan'
>;

export function useVirtualizer(options: Options): Virtualizer<HTMLElement, HTMLElement> {
  const rerender = useReducer((n: number) => n + 1, 0)[1] as () => void;
  const resolved: VirtualizerOptions<HTMLElement, HTMLElement> = {
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    ...options,
    onChange: () => rerender(),
  };
  const [virtualizer] = useState(() => new Virtualizer<HTMLElement, HTMLElement>(resolved));
  virtualizer.setOptions(resolved);
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}
