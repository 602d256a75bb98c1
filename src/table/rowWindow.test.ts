// The rows drawn for a scroll position, and where to scroll to show a row: every row in view is
// drawn, the spacers keep the scroll height, and a row scrolled to is whole below the header — in
// a table a browser lays out whole and in one past that height (scaled).

import { describe, expect, it } from 'vitest';
import { MAX_SCROLL_PX, type RowGeometry, rowsHeight, rowWindow, scrollTopFor } from './rowWindow';

/** Where row `i` is in the scroll content at `top` (its top; the header is above the rows), if drawn. */
function rowTopAt(g: RowGeometry, top: number, viewport: number, i: number): number | null {
  const w = rowWindow(g, top, viewport);
  if (i < w.first || i >= w.last) return null;
  return g.head + w.padTop + (i - w.first) * g.rowHeight;
}

/** Whether row `i` is whole on screen below the header at `top`. */
function wholeInView(g: RowGeometry, top: number, viewport: number, i: number): boolean {
  const y = rowTopAt(g, top, viewport, i);
  return y !== null && y >= top + g.head && y + g.rowHeight <= top + viewport;
}

describe('rowWindow', () => {
  const small: RowGeometry = { count: 1000, rowHeight: 24, overscan: 3, head: 30 };
  const viewport = 400;

  it('draws every row in view, and the spacers keep the rows’ height', () => {
    for (let top = 0; top <= rowsHeight(small) + small.head - viewport; top += 7) {
      const w = rowWindow(small, top, viewport);
      expect(w.padTop + (w.last - w.first) * small.rowHeight + w.padBottom).toBe(
        small.count * small.rowHeight,
      );
      for (let i = 0; i < small.count; i++) {
        const y = small.head + i * small.rowHeight;
        const seen = y + small.rowHeight > top + small.head && y < top + viewport;
        if (seen) expect(i >= w.first && i < w.last, `row ${i} at top ${top}`).toBe(true);
      }
      expect(w.last - w.first).toBeLessThanOrEqual(
        Math.ceil(viewport / small.rowHeight) + 2 * small.overscan + 1,
      );
    }
  });

  it('scrolls a row into view whole below the header, moving as little as it can', () => {
    let top = 0;
    for (const i of [0, 5, 16, 15, 999, 998, 500, 0, 17]) {
      const next = scrollTopFor(small, i, top, viewport);
      expect(wholeInView(small, next, viewport, i), `row ${i}`).toBe(true);
      // a row already whole in view does not move the table
      if (wholeInView(small, top, viewport, i)) expect(next).toBe(top);
      top = next;
    }
  });

  it('past what a browser lays out, scales the scroll range over all the rows', () => {
    for (const count of [700_000, 2_226_152, 8_752_459]) {
      const g: RowGeometry = { count, rowHeight: 24, overscan: 12, head: 33 };
      expect(rowsHeight(g)).toBe(MAX_SCROLL_PX);
      const maxTop = MAX_SCROLL_PX + g.head - viewport;
      let lastFirstInView = -1;
      for (const top of [0, 1, 1000, maxTop / 3, maxTop / 2, maxTop - 1, maxTop]) {
        const w = rowWindow(g, top, viewport);
        // the scroll height does not change with the position
        expect(w.padTop + (w.last - w.first) * g.rowHeight + w.padBottom).toBe(MAX_SCROLL_PX);
        // the rows in view go down the table as the position does
        let firstInView = -1;
        for (let i = w.first; i < w.last && firstInView < 0; i++)
          if (wholeInView(g, top, viewport, i)) firstInView = i;
        expect(firstInView).toBeGreaterThanOrEqual(lastFirstInView);
        lastFirstInView = firstInView;
      }
      // the top shows the first row, the bottom the last
      expect(wholeInView(g, 0, viewport, 0)).toBe(true);
      expect(wholeInView(g, maxTop, viewport, count - 1)).toBe(true);
      // any row scrolled to is whole in view
      let top = 0;
      for (const i of [count - 1, 0, 123_457, Math.floor(count / 2), count - 2, 5]) {
        top = scrollTopFor(g, i, top, viewport);
        expect(top).toBeGreaterThanOrEqual(0);
        expect(top).toBeLessThanOrEqual(maxTop);
        expect(wholeInView(g, top, viewport, i), `${count}: row ${i} at ${top}`).toBe(true);
      }
    }
  });

  it('draws nothing for no rows', () => {
    expect(rowWindow({ ...small, count: 0 }, 0, viewport)).toEqual({
      first: 0,
      last: 0,
      padTop: 0,
      padBottom: 0,
    });
  });
});
