// What a flame graph's tooltip says of a bar, as rows of text: the canvas tooltip (Tooltip.tsx)
// shows them in a table, the SVG export in each bar's <title>, so both say the same in the same
// units (core/text/units.ts). Pure: no DOM.

import {
  formatChangePercent,
  formatDelta,
  formatPercent,
  formatPoints,
  formatValue,
  formatWeight,
  formatWeightTime,
  type WeightUnit,
} from '../core/text/units';

export interface TipRow {
  /** The row's heading: `Total`, `Self`, `Baseline`, `Comparison`, `Δ`, or '' for a note. */
  th: string;
  td: string;
}

/**
 * A node's total and self: each in the unit, its share of the whole, (the total's) share of the
 * zoomed node, and for counts of samples with a period the time they stand for.
 */
export function weightRows(
  v: { total: number; self: number; whole: number; zoomed?: number },
  unit: WeightUnit,
): TipRow[] {
  const row = (th: string, x: number, zoomed?: number): TipRow => {
    const parts = [formatWeight(x, unit), formatPercent(x, v.whole)];
    if (zoomed !== undefined) parts.push(`${formatPercent(x, zoomed)} of zoomed`);
    const time = formatWeightTime(x, unit);
    if (time !== null) parts.push(time);
    return { th, td: parts.join(' · ') };
  };
  return [row('Total', v.total, v.zoomed), row('Self', v.self)];
}

/** Several narrow bars merged into one: their weight and share. */
export function mergedRow(value: number, whole: number, unit: WeightUnit): string {
  return `${formatWeight(value, unit)} (${formatPercent(value, whole)})`;
}

/**
 * A comparison's path: the baseline's and the comparison's totals (with their shares of their
 * sides), the change in the unit and in percent of the baseline, and with normalized sides the
 * change of the share in points (`share`, a fraction).
 */
export function diffRows(
  v: { base: number; comp: number; baseWhole: number; compWhole: number; share?: number },
  unit: WeightUnit,
): TipRow[] {
  const { base: b, comp: n } = v;
  const pct = formatChangePercent(b > 0 ? ((n - b) / b) * 100 : Number.POSITIVE_INFINITY);
  const share = v.share === undefined ? '' : ` · share ${formatPoints(v.share)}`;
  const rows: TipRow[] = [
    { th: 'Baseline', td: `${formatValue(b, unit)} · ${formatPercent(b, v.baseWhole)}` },
    { th: 'Comparison', td: `${formatValue(n, unit)} · ${formatPercent(n, v.compWhole)}` },
    { th: 'Δ', td: `${formatDelta(n - b, unit)} · ${pct}${share}` },
  ];
  if (b === 0) rows.push({ th: '', td: 'only in the comparison' });
  if (n === 0) rows.push({ th: '', td: 'only in the baseline' });
  return rows;
}
