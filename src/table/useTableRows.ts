// The rows of a virtualized table under a sticky header (the function table, the call tree): which
// rows are drawn, and the spacer heights above and below them. The virtualizer is told the rows
// start below the header (scrollMargin) and not to scroll a row under it (scrollPaddingStart), so a
// row scrolled to is whole on screen.

import { useVirtualizer } from '@tanstack/react-virtual';
import { type RefObject, useLayoutEffect, useRef, useState } from 'react';

export function useTableRows(count: number, rowHeight: number, scrollRef: RefObject<HTMLDivElement | null>) {
  const headRef = useRef<HTMLTableSectionElement>(null);
  const [head, setHead] = useState(0);
  useLayoutEffect(() => {
    const h = headRef.current?.offsetHeight ?? 0;
    if (h !== head) setHead(h);
  });
  const virtual = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    scrollMargin: head,
    scrollPaddingStart: head,
  });
  const items = virtual.getVirtualItems();
  const padTop = items.length ? items[0].start - head : 0;
  const padBottom = items.length ? virtual.getTotalSize() - (items[items.length - 1].end - head) : 0;
  return { virtual, headRef, items, padTop, padBottom };
}
