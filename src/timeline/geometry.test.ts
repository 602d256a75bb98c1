import { describe, expect, it } from 'vitest';
import { clampWindow, cpuColor, panWindow, spanOf, ticks, timeAt, xOf, zoomWindow } from './geometry';

describe('time axis', () => {
  const axis = { start: 1000, end: 3000, width: 200 };

  it('maps time to x and back', () => {
    expect(xOf(axis, 2000)).toBe(100);
    expect(timeAt(axis, 50)).toBe(1500);
    expect(xOf({ start: 5, end: 5, width: 100 }, 5)).toBe(0);
  });

  it('ticks at a round step at least minPx apart, labelled from the origin', () => {
    // 10 ns per pixel: 90 px is 900 ns, so a step of 1000 ns
    const t = ticks(axis, 1000);
    expect(t.map((x) => x.x)).toEqual([0, 100, 200]);
    expect(t.map((x) => x.label)).toEqual(['0 µs', '1 µs', '2 µs']);
    // 2 s over 1000 px, origin 0: a step of 200 ms
    const s = ticks({ start: 0, end: 2e9, width: 1000 }, 0);
    expect(s.map((x) => x.x)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(s[3].label).toBe('600.0 ms');
    // the first tick at or after the window's start
    expect(ticks({ start: 150, end: 450, width: 300 }, 0, 100).map((x) => x.label)).toEqual([
      '200 ns',
      '300 ns',
      '400 ns',
    ]);
  });
});

describe('windows', () => {
  const bounds = { start: 0, end: 1000 };

  it('a dragged span in either order, whole ns, inside the bounds', () => {
    expect(spanOf(700.4, 200.6, bounds)).toEqual({ start: 201, end: 700 });
    expect(spanOf(-50, 1200, bounds)).toEqual(bounds);
  });

  it('zooms around a point and keeps the window inside the bounds', () => {
    expect(zoomWindow({ start: 0, end: 1000 }, 2, 0.5, bounds, 1)).toEqual({ start: 250, end: 750 });
    expect(zoomWindow({ start: 0, end: 1000 }, 4, 0, bounds, 1)).toEqual({ start: 0, end: 250 });
    // out: never wider than the bounds, moved back inside
    expect(zoomWindow({ start: 800, end: 1000 }, 0.25, 1, bounds, 1)).toEqual({ start: 200, end: 1000 });
    expect(zoomWindow({ start: 0, end: 1000 }, 0.5, 0.5, bounds, 1)).toEqual(bounds);
    // no narrower than minSpan
    expect(zoomWindow({ start: 0, end: 100 }, 100, 0.5, bounds, 20)).toEqual({ start: 40, end: 60 });
  });

  it('pans by a fraction of its width, stopping at the ends', () => {
    expect(panWindow({ start: 100, end: 300 }, 0.5, bounds)).toEqual({ start: 200, end: 400 });
    expect(panWindow({ start: 100, end: 300 }, -1, bounds)).toEqual({ start: 0, end: 200 });
    expect(panWindow({ start: 700, end: 900 }, 1, bounds)).toEqual({ start: 800, end: 1000 });
    expect(clampWindow({ start: -10, end: 2000 }, bounds)).toEqual(bounds);
  });

  it('gives CPUs distinct colours, none a grey', () => {
    const c = [0, 1, 2, 3].map((i) => cpuColor(i, 4, false));
    expect(new Set(c).size).toBe(4);
    expect(cpuColor(-1, 4, false)).toMatch(/^hsl\(220, 8%/);
  });
});
