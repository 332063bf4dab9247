/** The conversation as a virtualized list: only the items near the viewport are in the DOM. */
import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { Item } from '../model/types.ts';
import { ItemView } from './ItemView.tsx';
import { useFollow } from './useFollow.ts';
import { useVirtualizer } from './useVirtualizer.ts';

const ESTIMATE: Record<Item['kind'], number> = { user: 70, text: 90, thought: 44, tool: 160, notice: 56 };

export interface ListHandle {
  scrollTo(index: number): void;
}

export function VirtualList({
  items,
  selected,
  onSelect,
  handle,
  follow,
}: {
  items: Item[];
  selected: number;
  onSelect(index: number): void;
  handle: { current: ListHandle | null };
  follow: boolean;
}): JSX.Element {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => ESTIMATE[items[i]?.kind ?? 'text'],
    getItemKey: (i) => items[i]?.key ?? i,
    overscan: 6,
  });
  useFollow(scroller, follow);
  handle.current = { scrollTo: (index) => virtualizer.scrollToIndex(index, { align: 'auto' }) };
  useEffect(() => {
    if (selected >= 0) virtualizer.scrollToIndex(selected, { align: 'auto' });
  }, [selected]);
  return (
    <div class="scroller" ref={scroller} data-testid="scroller" tabIndex={-1}>
      <div class="virtual-space" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index];
          if (!item) return null;
          return (
            <div
              key={row.key}
              class="virtual-row"
              data-index={row.index}
              ref={(node) => {
                if (node) virtualizer.measureElement(node);
              }}
              style={{ transform: `translateY(${row.start}px)` }}
              onClick={() => onSelect(row.index)}
            >
              <ItemView item={item} rev={item.rev} selected={row.index === selected} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
