// Which rows of a table of fixed-height rows are drawn for a scroll position, and where to scroll
// to show a row: arithmetic, no per-row state. A DCPI profile's table has 8.75M rows at 400 MB:
// @tanstack/react-virtual kept two numbers and a key per row (~210 MB) and measured them all again
// whenever the count changed (175–725 ms), and no browser lays out 8.75M × 24 px (Chromium stops
// near 2^25 px). So past MAX_SCROLL_PX the scroll range is scaled: the scroll position is a
// fraction of the way through the rows, and the rows drawn sit in the viewport where it is.

/** The largest scroll height laid out (under Firefox's ~17.9M px and Chromium's ~33.5M px). */
export const MAX_SCROLL_PX = 15_000_000;

export interface RowWindow {
  /** Rows first … last − 1 are drawn. */
  first: number;
  last: number;
  /** Heights of the spacers above and below them. */
  padTop: number;
  padBottom: number;
}

export interface RowGeometry {
  count: number;
  rowHeight: number;
  /** Rows drawn beyond the viewport on each side. */
  overscan: number;
  /** The sticky header's height: rows start below it and are not scrolled under it. */
  head: number;
}

/** The rows' scroll height: every row's, or MAX_SCROLL_PX past it. */
export function rowsHeight(g: RowGeometry): number {
  return Math.min(g.count * g.rowHeight, MAX_SCROLL_PX);
}

/** The fraction of the rows above the viewport's first row, in a scaled range; null when not scaled. */
function scaled(g: RowGeometry, viewport: number): { rows: number; px: number } | null {
  const full = g.count * g.rowHeight;
  if (full <= MAX_SCROLL_PX) return null;
  // what the scroll range spans: the rows that can be first, in the pixels the scroll can move
  const visible = Math.max(1, Math.floor(Math.max(0, viewport - g.head) / g.rowHeight));
  return { rows: Math.max(1, g.count - visible), px: Math.max(1, MAX_SCROLL_PX + g.head - viewport) };
}

/** The rows to draw at scroll position `top` of a viewport `viewport` px high (header included). */
export function rowWindow(g: RowGeometry, top: number, viewport: number): RowWindow {
  const { count, rowHeight: h, overscan } = g;
  if (count === 0) return { first: 0, last: 0, padTop: 0, padBottom: 0 };
  const s = scaled(g, viewport);
  if (s === null) {
    const first = Math.max(0, Math.floor(top / h) - overscan);
    const last = Math.min(count, Math.ceil((top + viewport - g.head) / h) + overscan);
    return { first, last, padTop: first * h, padBottom: (count - last) * h };
  }
  // scaled: the first visible row is as far through the rows as `top` is through the range, and
  // the rows are drawn from the viewport's top (the spacer above them is `top` high)
  const at = Math.min(s.rows, Math.round((Math.max(0, top) / s.px) * s.rows));
  const first = Math.max(0, at - overscan);
  const last = Math.min(count, at + Math.ceil(Math.max(0, viewport - g.head) / h) + overscan);
  // (near the end, where a scroll pixel is less than a row, the rows are moved up to end where
  // the range does: the spacers keep its height)
  const drawn = (last - first) * h;
  const padTop = Math.max(0, Math.min(top - (at - first) * h, MAX_SCROLL_PX - drawn));
  return { first, last, padTop, padBottom: MAX_SCROLL_PX - padTop - drawn };
}

/**
 * The scroll position that shows row `i` whole below the header, moving as little as it can
 * (scrollToIndex's 'auto'); `top` itself when it shows already.
 */
export function scrollTopFor(g: RowGeometry, i: number, top: number, viewport: number): number {
  const h = g.rowHeight;
  const s = scaled(g, viewport);
  if (s === null) {
    const rowTop = i * h; // below the header: the header covers [top, top + head)
    const rowBottom = rowTop + h + g.head;
    if (rowTop < top) return rowTop;
    if (rowBottom > top + viewport) return rowBottom - viewport;
    return top;
  }
  const w = rowWindow(g, top, viewport);
  const at = Math.min(s.rows, Math.round((Math.max(0, top) / s.px) * s.rows));
  const visible = Math.max(1, Math.floor(Math.max(0, viewport - g.head) / h));
  if (i >= at && i < at + visible && i >= w.first && i < w.last) return top;
  // the row first in view when above, last in view when below
  const want = i < at ? i : Math.max(0, i - visible + 1);
  return Math.min(s.px, Math.round((Math.min(want, s.rows) / s.rows) * s.px));
}
