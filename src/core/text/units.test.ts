import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCell,
  formatCellDelta,
  formatCellPercent,
  formatCellPoints,
  formatChangePercent,
  formatCount,
  formatCounted,
  formatDelta,
  formatPercent,
  formatPoints,
  formatTime,
  formatValue,
  formatWeight,
  formatWeightTime,
  timeUnitUs,
  unitName,
  type WeightUnit,
} from './units';

const unit = (type: string, u: string, periodUs = 0): WeightUnit => ({
  sampleType: { type, unit: u },
  periodUs,
});
const SAMPLES = unit('samples', 'count');
const CPU_10MS = unit('samples', 'count', 10_000);
const NS = unit('cpu', 'nanoseconds');
const BYTES = unit('inuse_space', 'bytes');
const OBJECTS = unit('alloc_objects', 'count');
const CYCLES = unit('cycles', 'events');
const MINUS = '\u2212';

describe('counts', () => {
  it('groups whole numbers; a fraction below 1 keeps two significant digits, so it never reads 0', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(2 ** 53)).toBe('9,007,199,254,740,992');
    expect(formatCount(1.4)).toBe('1');
    expect(formatCount(0.25)).toBe('0.25');
    expect(formatCount(0.0123)).toBe('0.012');
    expect(formatCount(-3)).toBe(`${MINUS}3`);
    expect(formatCount(-0)).toBe('0');
  });

  it('percent', () => {
    expect(formatPercent(1, 3)).toBe('33.3 %');
    expect(formatPercent(1, 300)).toBe('0.33 %');
    expect(formatPercent(0, 10)).toBe('0.00 %');
    // a share that is not 0 never reads 0: two significant digits below 0.01 %
    expect(formatPercent(1997, 1_115_622_000)).toBe('0.00018 %');
    expect(formatPercent(1, 10_000)).toBe('0.01 %');
    expect(formatPercent(-1, 1_000_000)).toBe(`${MINUS}0.0001 %`);
    expect(formatPercent(1, 4_400_000_000)).toBe('<0.0001 %');
    expect(formatPercent(-1, 4_400_000_000)).toBe(`>${MINUS}0.0001 %`);
    expect(formatPercent(5, 0)).toBe('–');
  });
});

describe('time', () => {
  it('takes the largest unit the value is at least one of, or shows as one of', () => {
    expect(formatTime(0)).toBe('0 µs');
    expect(formatTime(0.04)).toBe('40 ns');
    expect(formatTime(0.0004)).toBe('0.4 ns');
    expect(formatTime(0.9996)).toBe('1 µs');
    expect(formatTime(120)).toBe('120 µs');
    expect(formatTime(999.4)).toBe('999 µs');
    expect(formatTime(999.96)).toBe('1.0 ms');
    expect(formatTime(684_000)).toBe('684.0 ms');
    expect(formatTime(999_999)).toBe('1.00 s');
    expect(formatTime(2_350_000)).toBe('2.35 s');
    expect(formatTime(90e6)).toBe('1.50 min');
    expect(formatTime(2 * 3600e6)).toBe('2.00 h');
    // 2^53 ns: 104 days.
    expect(formatTime(2 ** 53 / 1000)).toBe('2502.00 h');
    expect(formatTime(-1500)).toBe(`${MINUS}1.5 ms`);
  });

  it('knows the time units profiles name, in any case', () => {
    expect([timeUnitUs('nanoseconds'), timeUnitUs('NS'), timeUnitUs('ms'), timeUnitUs('seconds')]).toEqual([
      0.001, 0.001, 1000, 1e6,
    ]);
    expect(timeUnitUs('bytes')).toBeUndefined();
    expect(timeUnitUs('count')).toBeUndefined();
  });
});

describe('bytes', () => {
  it('in binary units', () => {
    const cases: [number, string][] = [
      [0, '0 B'],
      [0.5, '0.5 B'],
      [512, '512 B'],
      [1023, '1,023 B'],
      [1023.96, '1.0 KiB'],
      [1536, '1.5 KiB'],
      [3.2 * 2 ** 20, '3.2 MiB'],
      [1.1 * 2 ** 30, '1.10 GiB'],
      [2 ** 53, '8.00 PiB'],
      [-2048, `${MINUS}2.0 KiB`],
    ];
    expect(cases.map(([n]) => formatBytes(n))).toEqual(cases.map(([, text]) => text));
  });
});

describe('a weight in its sample type’s unit', () => {
  it('counts with their noun; time and bytes in their units', () => {
    expect(formatWeight(1234, SAMPLES)).toBe('1,234 samples');
    expect(formatWeight(12, OBJECTS)).toBe('12 objects');
    expect(formatWeight(4000, CYCLES)).toBe('4,000 cycles');
    expect(formatWeight(350e6, NS)).toBe('350.0 ms');
    expect(formatWeight(1536, BYTES)).toBe('1.5 KiB');
    expect(formatWeight(7, unit('samples', ''))).toBe('7 samples');
    // one of them: the noun singular; a fraction (a scaled weight) and 0 plural
    expect(formatWeight(1, SAMPLES)).toBe('1 sample');
    expect(formatWeight(1, OBJECTS)).toBe('1 object');
    expect(formatWeight(0, SAMPLES)).toBe('0 samples');
    expect(formatWeight(0.5, SAMPLES)).toBe('0.5 samples');
    expect(formatCounted(1, 'function')).toBe('1 function');
    expect(formatCounted(2048, 'function')).toBe('2,048 functions');
    expect(formatCounted(1, 'address', 'addresses')).toBe('1 address');
  });

  it('samples with a period: the time they stand for too', () => {
    expect(formatWeightTime(1234, CPU_10MS)).toBe('12.34 s');
    expect(formatValue(5, CPU_10MS)).toBe('5 samples · 50.0 ms');
    expect(formatWeightTime(5, SAMPLES)).toBeNull();
    // A time or bytes unit is its own: no period time beside it.
    expect(formatWeightTime(5, { ...NS, periodUs: 10 })).toBeNull();
    expect(formatValue(5, { ...BYTES, periodUs: 10 })).toBe('5 B');
  });

  it('a change: one sign, U+2212 for a decrease, ± for none', () => {
    expect(formatDelta(-35, CPU_10MS)).toBe(`${MINUS}35 samples · 350.0 ms`);
    expect(formatDelta(-35, CPU_10MS).match(/[-−]/g)).toEqual([MINUS]);
    expect(formatDelta(1.2 * 2 ** 20, BYTES)).toBe('+1.2 MiB');
    expect(formatDelta(-(2 ** 53), NS)).toBe(`${MINUS}2502.00 h`);
    expect(formatDelta(0, SAMPLES)).toBe('±0 samples');
  });

  it('a change in percent, in points of share and in a table cell: one minus sign (U+2212), never a hyphen', () => {
    expect(formatChangePercent(655.2)).toBe('+655.2 %');
    expect(formatChangePercent(-5.14)).toBe(`${MINUS}5.1 %`);
    expect(formatChangePercent(-0.04)).toBe('0.0 %');
    expect(formatChangePercent(0)).toBe('0.0 %');
    expect(formatChangePercent(Number.POSITIVE_INFINITY)).toBe('new');
    expect(formatPoints(0.0449)).toBe('+4.49 pts');
    expect(formatPoints(-0.0456)).toBe(`${MINUS}4.56 pts`);
    expect(formatPoints(-0.00001)).toBe('0.00 pts');
    // A table cell says the number, its column the unit.
    expect(formatCellPoints(-0.0456)).toBe(`${MINUS}4.56`);
    expect(formatCellPercent(655.2)).toBe('+655.2');
    expect(formatCellPercent(Number.POSITIVE_INFINITY)).toBe('new');
    expect(formatCellDelta(-32, SAMPLES)).toBe(`${MINUS}32`);
    expect(formatCellDelta(5, SAMPLES)).toBe('+5');
    expect(formatCellDelta(0, SAMPLES)).toBe('0');
    expect(formatCellDelta(-1536, BYTES)).toBe(`${MINUS}1.5 KiB`);
    for (const text of [formatChangePercent(-3), formatPoints(-0.5), formatCellDelta(-2e6, NS)])
      expect(text.match(/[-−]/g)).toEqual([MINUS]);
  });

  it('a table cell: a count as a plain number; time and bytes in their units', () => {
    expect(formatCell(1234, SAMPLES)).toBe('1,234');
    expect(formatCell(1536, BYTES)).toBe('1.5 KiB');
    expect(formatCell(2e6, NS)).toBe('2.0 ms');
  });

  it('names a column of raw weights for a header', () => {
    expect([SAMPLES, OBJECTS, CYCLES, NS, BYTES].map(unitName)).toEqual([
      'samples',
      'objects',
      'cycles',
      'nanoseconds',
      'bytes',
    ]);
  });
});
