import { describe, expect, it } from 'vitest';
import type { WeightUnit } from '../core/text/units';
import { diffRows, mergedRow, weightRows } from './tooltip-text';

const CPU: WeightUnit = { sampleType: { type: 'samples', unit: 'count' }, periodUs: 10_000 };
const HEAP: WeightUnit = { sampleType: { type: 'inuse_space', unit: 'bytes' }, periodUs: 0 };

describe('tooltip rows (the canvas tooltip and the SVG titles)', () => {
  it('total and self in the unit, their shares, the zoomed share, and the time counts of samples stand for', () => {
    expect(weightRows({ total: 60, self: 6, whole: 100, zoomed: 90 }, CPU)).toEqual([
      { th: 'Total', td: '60 samples · 60.0 % · 66.7 % of zoomed · 600.0 ms' },
      { th: 'Self', td: '6 samples · 6.00 % · 60.0 ms' },
    ]);
    expect(weightRows({ total: 3 * 2 ** 20, self: 0, whole: 4 * 2 ** 20 }, HEAP)).toEqual([
      { th: 'Total', td: '3.0 MiB · 75.0 %' },
      { th: 'Self', td: '0 B · 0.00 %' },
    ]);
    expect(mergedRow(1536, 4096, HEAP)).toBe('1.5 KiB (37.5 %)');
  });

  it('a comparison: both sides, the change with one minus sign, new and gone paths', () => {
    expect(diffRows({ base: 40, comp: 30, baseWhole: 100, compWhole: 100, share: -0.1 }, CPU)).toEqual([
      { th: 'Baseline', td: '40 samples · 400.0 ms · 40.0 %' },
      { th: 'Comparison', td: '30 samples · 300.0 ms · 30.0 %' },
      { th: 'Δ', td: '\u221210 samples · 100.0 ms · \u221225.0 % · share \u221210.00 pts' },
    ]);
    expect(diffRows({ base: 0, comp: 2048, baseWhole: 10, compWhole: 4096 }, HEAP)).toEqual([
      { th: 'Baseline', td: '0 B · 0.00 %' },
      { th: 'Comparison', td: '2.0 KiB · 50.0 %' },
      { th: 'Δ', td: '+2.0 KiB · new' },
      { th: '', td: 'only in the comparison' },
    ]);
  });
});
