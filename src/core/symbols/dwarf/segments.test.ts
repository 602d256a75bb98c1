// findFunction over innermostSegments against the rule it implements, checked by brute force: the
// smallest range holding the address, the larger function index on ties (bfd's
// lookup_address_in_function_table), on nested ranges as DWARF's inline trees give them and on
// overlapping ones as a damaged file may.

import { describe, expect, it } from 'vitest';
import { prng } from '../../../../test/helpers/prng';
import { findFunction, innermostSegments, type UnitFunctions } from './info';

function brute(low: number[], high: number[], fn: number[], addr: number): number {
  let best = -1;
  let bestLen = Number.POSITIVE_INFINITY;
  for (let i = 0; i < low.length; i++) {
    if (low[i] > addr || high[i] <= addr) continue;
    const len = high[i] - low[i];
    if (len < bestLen || (len === bestLen && fn[i] > best)) {
      best = fn[i];
      bestLen = len;
    }
  }
  return best;
}

function funcsOf(low: number[], high: number[], fn: number[]): UnitFunctions {
  const seg = innermostSegments(
    Float64Array.from(low),
    Float64Array.from(high),
    Float64Array.from(fn),
    low.length,
  );
  return { segStart: seg.start, segFn: seg.fn } as UnitFunctions;
}

/** Ranges of an inline tree: each function's children inside it, some split in two. */
function nested(
  rnd: () => number,
  lo: number,
  hi: number,
  depth: number,
  out: number[][],
  fnId: { n: number },
) {
  const f = fnId.n++;
  out.push([lo, hi, f]);
  if (depth === 0 || hi - lo < 8) return;
  let at = lo + Math.floor(rnd() * 4);
  while (at < hi - 4) {
    const len = 1 + Math.floor(rnd() * Math.min(64, hi - at - 1));
    if (rnd() < 0.6) nested(rnd, at, at + len, depth - 1, out, fnId);
    at += len + Math.floor(rnd() * 8);
  }
}

describe('findFunction', () => {
  it('equals the brute-force rule on nested inline trees', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rnd = prng(seed);
      const ranges: number[][] = [];
      const id = { n: 0 };
      for (let base = 0x1000; base < 0x1000 + 20 * 512; base += 512 + Math.floor(rnd() * 64))
        nested(rnd, base, base + 256 + Math.floor(rnd() * 256), 4, ranges, id);
      const [low, high, fn] = [0, 1, 2].map((k) => ranges.map((r) => r[k]));
      const f = funcsOf(low, high, fn);
      const wrong: number[] = [];
      for (let a = 0xf00; a < 0x1000 + 21 * 600; a++)
        if (findFunction(f, a) !== brute(low, high, fn, a)) wrong.push(a);
      expect(wrong).toEqual([]);
    }
  });

  it('equals it on overlapping, equal, empty and reversed ranges', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rnd = prng(seed);
      const n = 1 + Math.floor(rnd() * 60);
      const low: number[] = [];
      const high: number[] = [];
      const fn: number[] = [];
      for (let i = 0; i < n; i++) {
        const l = Math.floor(rnd() * 200);
        low.push(l);
        high.push(rnd() < 0.1 ? l - Math.floor(rnd() * 5) : l + Math.floor(rnd() * 80));
        fn.push(Math.floor(rnd() * 20));
      }
      const f = funcsOf(low, high, fn);
      const wrong: number[] = [];
      for (let a = -5; a < 300; a++) if (findFunction(f, a) !== brute(low, high, fn, a)) wrong.push(a);
      expect(wrong).toEqual([]);
    }
  });

  it('no ranges: no function', () => {
    expect(findFunction(funcsOf([], [], []), 0x1000)).toBe(-1);
  });
});
