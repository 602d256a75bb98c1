// The rows of a virtualized table under a sticky header (the function table, the call tree): which
// rows are drawn, and the spacer heights above and below them. Rows have one height, so which are
// drawn is arithmetic on the scroll position (rowWindow.ts), with no state per row: a table of
// millions of rows costs what one of a hundred does, and past what a browser lays out its scroll
// range is scaled. Rows start below the header and are never scrolled under it, so a row scrolled
// to is whole on screen.

import { type RefObject, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { type RowGeometry, rowWindow, scrollTopFor } from './rowWindow';

/** Rows drawn beyond the viewport on each side. */
const OVERSCAN = 12;

export interface TableRows {
  /** Scrolls to show row `index` whole (as little as it can: `align: 'auto'`). */
  scrollToIndex(index: number, opts?: { align: 'auto' }): void;
}

export function useTableRows(count: number, rowHeight: number, scrollRef: RefObject<HTMLDivElement | null>) {
  const headRef = useRef<HTMLTableSectionElement>(null);
  const [head, setHead] = useState(0);
  useLayoutEffect(() => {
    const h = headRef.current?.offsetHeight ?? 0;
    if (h !== head) setHead(h);
  });
  // the scroll position and the viewport's height, as the element has them
  const [view, setView] = useState({ top: 0, height: 0 });
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const update = () =>
      setView((v) =>
        v.top === el.scrollTop && v.height === el.clientHeight
          ? v
          : { top: el.scrollTop, height: el.clientHeight },
      );
    update();
    el.addEventListener('scroll', update, { passive: true });
    const resized = new ResizeObserver(update);
    resized.observe(el);
    return () => {
      el.removeEventListener('scroll', update);
      resized.disconnect();
    };
  }, [scrollRef]);
  const geometry: RowGeometry = useMemo(
    () => ({ count, rowHeight, overscan: OVERSCAN, head }),
    [count, rowHeight, head],
  );
  const w = rowWindow(geometry, view.top, view.height);
  const items = useMemo(
    () => Array.from({ length: w.last - w.first }, (_, k) => ({ index: w.first + k, key: w.first + k })),
    [w.first, w.last],
  );
  const scrollToIndex = useCallback(
    (index: number) => {
      const el = scrollRef.current;
      if (!el || index < 0 || index >= geometry.count) return;
      const top = scrollTopFor(geometry, index, el.scrollTop, el.clientHeight);
      if (top !== el.scrollTop) {
        el.scrollTop = top;
        setView({ top: el.scrollTop, height: el.clientHeight });
      }
    },
    [scrollRef, geometry],
  );
  const virtual: TableRows = useMemo(() => ({ scrollToIndex }), [scrollToIndex]);
  return { virtual, headRef, items, padTop: w.padTop, padBottom: w.padBottom };
}
