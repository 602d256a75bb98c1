// One units module: every weight, time and size the views, the exports and the CLI show. A weight
// is shown in its sample type's unit (pprof's {type, unit}): counts (`1,234 samples`, `12 objects`,
// `4,000 cycles`), time (nanoseconds … seconds: `350 ms`), bytes (`1.5 MiB`); counts of samples
// with a known period also as the time they stand for. Negative values (a comparison's change)
// take one minus sign, U+2212.

import type { SampleType } from '../types';

const MINUS = '\u2212';

/** Microseconds per unit, for the time units profiles name (pprof's spellings, perf's, short ones). */
const TIME_UNIT_US: Record<string, number> = {
  nanoseconds: 0.001,
  nanosecond: 0.001,
  ns: 0.001,
  microseconds: 1,
  microsecond: 1,
  us: 1,
  milliseconds: 1000,
  millisecond: 1000,
  ms: 1000,
  seconds: 1e6,
  second: 1e6,
  s: 1e6,
};

/** Microseconds per unit of `unit` when it is a time unit (case ignored), else undefined. */
export function timeUnitUs(unit: string): number | undefined {
  return TIME_UNIT_US[unit.toLowerCase()];
}

const isBytes = (unit: string) => {
  const u = unit.toLowerCase();
  return u === 'bytes' || u === 'byte';
};

/** What a weight measures: its sample type, and the µs one count stands for (0: unknown, or not a count). */
export interface WeightUnit {
  sampleType: SampleType;
  periodUs: number;
}

/** The unit of a folded profile's weights (FoldedMeta's sample type and period). */
export function weightUnit(meta: { sampleType: SampleType; periodUs: number }): WeightUnit {
  return { sampleType: meta.sampleType, periodUs: meta.periodUs };
}

/** One formatter each: toLocaleString builds a new one per call (tens of µs, on every render). */
const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const FRACTION = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 });

const signed = (negative: boolean, text: string) => (negative ? `${MINUS}${text}` : text);

/**
 * A count: a whole number, grouped (`1,234`); below 1 (a fraction, as a scaled or normalized
 * weight can be) two significant digits, so a weight that is not 0 never reads `0`.
 */
export function formatCount(n: number): string {
  const a = Math.abs(n);
  return signed(n < 0 && a > 0, a > 0 && a < 1 ? FRACTION.format(a) : WHOLE.format(Math.round(a)));
}

/**
 * A share of `whole` in percent: one decimal from 10 %, two below; under 0.01 % two significant
 * digits (as pprof's `%.2g` below 1 %), so a share that is not 0 never reads `0.00 %` (one address
 * of a flat profile's millions holds a few ten-thousandths of a percent), and under 0.0001 % a
 * bound (`<0.0001 %`), which a table's column holds.
 */
export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '–';
  const p = (100 * part) / whole;
  const a = Math.abs(p);
  if (a > 0 && a < TINY_PERCENT) return p < 0 ? `>${MINUS}${TINY_PERCENT} %` : `<${TINY_PERCENT} %`;
  const text = a >= 10 ? a.toFixed(1) : a >= 0.01 || a === 0 ? a.toFixed(2) : FRACTION.format(a);
  return signed(p < 0, `${text} %`);
}

/** The least share `formatPercent` writes as a number. */
const TINY_PERCENT = 0.0001;

/**
 * Units from the largest: a value takes the largest unit it is at least one of, or the next larger
 * when it shows as that much at its unit's precision (`1.0 ms`, not `1,000 µs`).
 */
type Scale = readonly { size: number; digits: number; name: string }[];

const TIME: Scale = [
  { size: 3600e6, digits: 2, name: 'h' },
  { size: 60e6, digits: 2, name: 'min' },
  { size: 1e6, digits: 2, name: 's' },
  { size: 1e3, digits: 1, name: 'ms' },
  { size: 1, digits: 0, name: 'µs' },
  { size: 1e-3, digits: 0, name: 'ns' },
];

const BYTES: Scale = [
  { size: 2 ** 60, digits: 2, name: 'EiB' },
  { size: 2 ** 50, digits: 2, name: 'PiB' },
  { size: 2 ** 40, digits: 2, name: 'TiB' },
  { size: 2 ** 30, digits: 2, name: 'GiB' },
  { size: 2 ** 20, digits: 1, name: 'MiB' },
  { size: 2 ** 10, digits: 1, name: 'KiB' },
  { size: 1, digits: 0, name: 'B' },
];

function scaled(v: number, scale: Scale, zero: string): string {
  const a = Math.abs(v);
  if (a === 0) return `0 ${zero}`;
  let i = scale.findIndex((u) => a >= u.size);
  if (i < 0) i = scale.length - 1;
  const shown = (u: (typeof scale)[number]) => Number((a / u.size).toFixed(u.digits)) * u.size;
  if (i > 0 && shown(scale[i]) >= scale[i - 1].size) i--;
  const u = scale[i];
  const x = a / u.size;
  return signed(v < 0, `${u.digits === 0 ? formatCount(x) : x.toFixed(u.digits)} ${u.name}`);
}

/** A duration in microseconds: `1.50 min`, `2.35 s`, `350.0 ms`, `120 µs`, `40 ns`. */
export function formatTime(us: number): string {
  return scaled(us, TIME, 'µs');
}

/** Bytes in binary units: `512 B`, `1.5 KiB`, `3.2 MiB`, `1.10 GiB`. */
export function formatBytes(n: number): string {
  return scaled(n, BYTES, 'B');
}

/** The noun of a count: `samples`, `objects` (alloc_objects, inuse_objects), else its type (`cycles`). */
function countNoun(t: SampleType): string {
  if (t.type === 'samples' || t.unit === '') return 'samples';
  return t.type.endsWith('objects') ? 'objects' : t.type;
}

/** A count and its noun, the noun singular for one: `1 function`, `2,048 functions`. */
export function formatCounted(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}

/** The singular of the nouns countNoun gives for samples and objects; a type's own name as it is. */
const SINGULAR: Record<string, string> = { samples: 'sample', objects: 'object' };

/** A weight in its unit, alone: `1,234 samples`, `12 objects`, `1.5 MiB`, `350.0 ms`. */
export function formatWeight(v: number, u: WeightUnit): string {
  const { unit } = u.sampleType;
  if (isBytes(unit)) return formatBytes(v);
  const us = timeUnitUs(unit);
  if (us !== undefined) return formatTime(v * us);
  const noun = countNoun(u.sampleType);
  return formatCounted(v, SINGULAR[noun] ?? noun, noun);
}

/** The time a count of samples stands for, with a known period (`12.3 ms`); null for other weights. */
export function formatWeightTime(v: number, u: WeightUnit): string | null {
  const { unit } = u.sampleType;
  if (u.periodUs <= 0 || isBytes(unit) || timeUnitUs(unit) !== undefined) return null;
  return formatTime(v * u.periodUs);
}

/** A weight in its unit and, for counts of samples with a period, the time: `1,234 samples · 12.3 ms`. */
export function formatValue(v: number, u: WeightUnit): string {
  const time = formatWeightTime(v, u);
  return time === null ? formatWeight(v, u) : `${formatWeight(v, u)} · ${time}`;
}

/** A signed change in the value's unit: `+1.2 MiB`, `−35 samples · 350.0 ms`, `±0 samples`. */
export function formatDelta(v: number, u: WeightUnit): string {
  return `${v > 0 ? '+' : v < 0 ? MINUS : '±'}${formatValue(Math.abs(v), u)}`;
}

/**
 * A change in percent, signed: `+24.6 %`, `−3.0 %`, `0.0 %`; `new` where there was nothing before
 * (Infinity, as a relative change from 0 is).
 */
export function formatChangePercent(p: number): string {
  if (p === Number.POSITIVE_INFINITY) return 'new';
  const a = Math.abs(p);
  const text = `${a.toFixed(1)} %`;
  return text === '0.0 %' ? text : `${p > 0 ? '+' : MINUS}${text}`;
}

/** A change of a share (a fraction of 1) in percentage points, signed: `+2.35 pts`, `−0.40 pts`. */
export function formatPoints(share: number): string {
  const text = `${Math.abs(share * 100).toFixed(2)} pts`;
  return text === '0.00 pts' ? text : `${share > 0 ? '+' : MINUS}${text}`;
}

/** A table cell's change of share in percentage points, signed, its unit in the header: `+2.35`, `−0.40`. */
export function formatCellPoints(share: number): string {
  return formatPoints(share).replace(/ pts$/, '');
}

/** A table cell's change in percent, signed, its unit in the header: `+24.6`, `−3.0`, `new`. */
export function formatCellPercent(p: number): string {
  return formatChangePercent(p).replace(/ %$/, '');
}

/** A table cell's change in the weight's unit, signed: `+5`, `−32`, `−1.5 MiB`, `0`. */
export function formatCellDelta(v: number, u: WeightUnit): string {
  const text = formatCell(Math.abs(v), u);
  return v > 0 ? `+${text}` : v < 0 ? `${MINUS}${text}` : text;
}

/** A table cell's weight: counts as plain numbers (the column says what), bytes and time in their units. */
export function formatCell(v: number, u: WeightUnit): string {
  const { unit } = u.sampleType;
  return isBytes(unit) || timeUnitUs(unit) !== undefined ? formatWeight(v, u) : formatCount(v);
}

/** What a column of raw weights holds, for a header: `samples`, `objects`, `bytes`, `nanoseconds`. */
export function unitName(u: WeightUnit): string {
  const { unit } = u.sampleType;
  if (isBytes(unit)) return 'bytes';
  return timeUnitUs(unit) !== undefined ? unit.toLowerCase() : countNoun(u.sampleType);
}
