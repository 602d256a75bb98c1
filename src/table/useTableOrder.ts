// The function table's row order, computed without holding the page: a first slice in the render
// (a table of thousands of rows is done in it, as before), the rest in tasks of SLICE_MS with the
// page free between them (core/model/table-order.ts). A newer query drops the work of an older
// one. While the work goes on, the table keeps the order it shows when only the query changed
// (the same rows, sorted or filtered another way), and shows no rows for another analysis.

import { useEffect, useMemo, useRef, useState } from 'react';
import { type OrderWork, orderWork, type TableQuery, type TableSource } from '../core/model/table-order';

/** The render's own slice: a table up to ~100k rows is ordered in it. */
const FIRST_MS = 24;
/** Each later slice: short enough for input and paint between them. */
const SLICE_MS = 12;
/** How often the progress is shown while the work goes on. */
const PROGRESS_MS = 100;

const EMPTY = new Int32Array(0);

export interface TableOrder {
  /** The rows to show, in order. */
  order: Int32Array;
  /** The query's own order is still being made (the rows shown are the last query's, or none). */
  pending: boolean;
  /** How far that work is, 0–1. */
  progress: number;
}

/**
 * The order of `source`'s rows for `query` (`query` changes identity when the query changes; `empty`:
 * no rows, as for a preview whose table is still counted).
 */
export function useTableOrder(source: TableSource, query: TableQuery, empty: boolean): TableOrder {
  const first = useMemo(() => {
    if (empty) return { work: null, order: EMPTY };
    const work = orderWork(source, query);
    return { work, order: work.step(performance.now() + FIRST_MS) };
  }, [source, query, empty]);
  const [late, setLate] = useState<{ work: OrderWork; order: Int32Array | null; progress: number } | null>(
    null,
  );
  useEffect(() => {
    const { work } = first;
    if (!work || first.order) return;
    let timer = 0;
    let shown = performance.now();
    const slice = () => {
      const order = work.step(performance.now() + SLICE_MS);
      // the progress shown anew every PROGRESS_MS (each is a render of the table)
      if (order || performance.now() - shown >= PROGRESS_MS) {
        shown = performance.now();
        setLate({ work, order, progress: work.progress });
      }
      if (!order) timer = window.setTimeout(slice, 0);
    };
    timer = window.setTimeout(slice, 0);
    return () => window.clearTimeout(timer);
  }, [first]);
  const own = first.order ?? (late?.work === first.work ? late.order : null);
  // The last order made for this source: shown while a new query's order is made.
  const last = useRef<{ source: TableSource; order: Int32Array } | null>(null);
  if (own) last.current = { source, order: own };
  const kept = last.current?.source === source ? last.current.order : EMPTY;
  return {
    order: own ?? kept,
    pending: own === null,
    progress: own ? 1 : late?.work === first.work ? late.progress : (first.work?.progress ?? 0),
  };
}
